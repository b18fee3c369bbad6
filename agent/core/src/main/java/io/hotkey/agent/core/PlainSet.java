package io.hotkey.agent.core;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@code SET key value} with no option (no expiry, no condition, no GET): it replaces its key's
 * value whatever it was, answers {@code OK} unless it fails, and Redis reports every one of them to
 * the connections that track the key.
 */
public final class PlainSet {
  private static final byte[] SET = "SET".getBytes(StandardCharsets.US_ASCII);
  private static final ByteBuffer OK = ByteBuffer.wrap("OK".getBytes(StandardCharsets.US_ASCII));

  private PlainSet() {}

  public static boolean matches(byte[][] argv) {
    return argv.length == 3 && Arrays.equals(argv[0], SET);
  }

  /** Whether a reply's first bytes (null if none came) are {@code OK}. */
  public static boolean isOk(ByteBuffer reply) {
    return reply != null && OK.equals(reply);
  }
}
