package io.hotkey.agent.idempotency;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/** Reads a request body for its fingerprint without ever holding more than the configured limit. */
public final class BoundedBodies {
  private static final int FIRST_CHUNK = 512;
  private static final int LAST_CHUNK = 8192;

  private BoundedBodies() {}

  /**
   * Copies {@code in} into {@code into} until the end or until more than {@code limit} bytes were
   * read. What was consumed stays in {@code into} either way (also when reading fails), so the
   * caller can put it back in front of the rest of the stream.
   *
   * @return whether the whole body was read within the limit
   */
  public static boolean readUpTo(InputStream in, long limit, ByteArrayOutputStream into)
      throws IOException {
    // most request bodies are small: start with a small chunk, and grow it while reads fill it
    byte[] chunk = new byte[(int) Math.min(FIRST_CHUNK, limit + 1)];
    int read;
    while ((read = in.read(chunk)) != -1) {
      into.write(chunk, 0, read);
      if (into.size() > limit) {
        return false;
      }
      if (read == chunk.length && chunk.length < LAST_CHUNK) {
        chunk = new byte[chunk.length * 2];
      }
    }
    return true;
  }
}
