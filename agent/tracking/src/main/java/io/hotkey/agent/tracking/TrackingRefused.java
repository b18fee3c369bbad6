package io.hotkey.agent.tracking;

import io.hotkey.agent.redis.resp.RespError;

/**
 * The server answered, and refused what tracking needs (AUTH, CLIENT TRACKING, SUBSCRIBE...):
 * retrying soon will not help.
 */
final class TrackingRefused extends Exception {
  private static final long serialVersionUID = 1L;

  /** What would let the agent track, for the log line. */
  private final String remedy;

  private TrackingRefused(String message, String remedy) {
    super(message, null, false, false);
    this.remedy = remedy;
  }

  /** The login was refused: wrong or missing credentials. */
  static TrackingRefused login(String message) {
    return new TrackingRefused(
        message,
        "the server refused the agent's login (the application client's, or hotkey.redis.uri's),"
            + " or wants one the agent did not find; set hotkey.redis.uri to give it one");
  }

  /** {@code command} answered {@code error}: a login refused, or a right this user lacks. */
  static TrackingRefused answered(String command, Object error) {
    String message = command + " answered " + error;
    if (error instanceof RespError
        && (((RespError) error).message().startsWith("NOAUTH")
            || ((RespError) error).message().startsWith("WRONGPASS"))) {
      return login(message);
    }
    return new TrackingRefused(
        message,
        "the server refused; allow CLIENT TRACKING and SUBSCRIBE for this user, or name another"
            + " with hotkey.redis.uri");
  }

  String remedy() {
    return remedy;
  }
}
