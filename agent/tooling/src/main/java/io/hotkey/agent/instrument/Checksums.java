package io.hotkey.agent.instrument;

import io.hotkey.agent.core.Sha256;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * What names and checks a weave: CRC-32, CRC-32C and Adler-32 of its inputs, and their length. Not
 * a cryptographic digest, which nothing here needs (whoever can change a class file or the private
 * directory runs code anyway) and whose first use costs a start the security providers' set-up and
 * SHA-256 over every class file by code not yet compiled: the JDK computes these three natively.
 * Two inputs that differ by accident, not made to collide, share all of them with a chance far
 * below 2<sup>-64</sup>.
 */
final class Checksums {
  /** The size of {@link #value()}. */
  static final int BYTES = 3 * Integer.BYTES + Long.BYTES;

  private final CRC32 crc32 = new CRC32();
  private final CRC32C crc32c = new CRC32C();
  private final Adler32 adler32 = new Adler32();
  private long length;

  Checksums update(byte[] bytes) {
    crc32.update(bytes);
    crc32c.update(bytes);
    adler32.update(bytes);
    length += bytes.length;
    return this;
  }

  /** Adds {@code text} as UTF-8 after its length, so that two fields never run into each other. */
  Checksums update(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return update(bytes.length).update(bytes);
  }

  /** Adds a count or a length, to frame what follows. */
  Checksums update(int value) {
    return update(ByteBuffer.allocate(Integer.BYTES).putInt(value).array());
  }

  byte[] value() {
    return ByteBuffer.allocate(BYTES)
        .putInt((int) crc32.getValue())
        .putInt((int) crc32c.getValue())
        .putInt((int) adler32.getValue())
        .putLong(length)
        .array();
  }

  /** {@link #value()} as lower-case hex, a name for a file. */
  String hex() {
    return Sha256.hex(value());
  }
}
