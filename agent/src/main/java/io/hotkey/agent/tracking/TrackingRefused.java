package io.hotkey.agent.tracking;

/**
 * The server answered, and refused what tracking needs (AUTH, CLIENT TRACKING, SUBSCRIBE...):
 * retrying soon will not help.
 */
final class TrackingRefused extends Exception {
  private static final long serialVersionUID = 1L;

  TrackingRefused(String message) {
    super(message, null, false, false);
  }
}
