package io.hotkey.agent.idempotency;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/** Reads a request body for its fingerprint without ever holding more than the configured limit. */
public final class BoundedBodies {
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
    byte[] chunk = new byte[8192];
    int read;
    while ((read = in.read(chunk)) != -1) {
      into.write(chunk, 0, read);
      if (into.size() > limit) {
        return false;
      }
    }
    return true;
  }
}
