package io.hotkey.agent.idempotency.store;

import io.hotkey.agent.idempotency.HttpAnswer;

/**
 * What a claim found: the caller won (with its fencing token), another claim is running, or a
 * completed record; for a token, also that it was never issued (or expired), or issued to another
 * caller.
 */
public final class ClaimResult {
  public enum Kind {
    CLAIMED,
    IN_PROGRESS,
    COMPLETED,
    NOT_ISSUED,
    WRONG_CALLER
  }

  private static final ClaimResult NOT_ISSUED_RESULT =
      new ClaimResult(Kind.NOT_ISSUED, 0, null, 0, null);
  private static final ClaimResult WRONG_CALLER_RESULT =
      new ClaimResult(Kind.WRONG_CALLER, 0, null, 0, null);

  private final Kind kind;
  private final long token;
  private final byte[] fingerprint;
  private final long remainingMillis;
  private final HttpAnswer response;

  private ClaimResult(
      Kind kind, long token, byte[] fingerprint, long remainingMillis, HttpAnswer response) {
    this.kind = kind;
    this.token = token;
    this.fingerprint = fingerprint;
    this.remainingMillis = remainingMillis;
    this.response = response;
  }

  public static ClaimResult claimed(long token) {
    return new ClaimResult(Kind.CLAIMED, token, null, 0, null);
  }

  /**
   * The key is claimed by a request that has not finished.
   *
   * @param leaseRemainingMillis how long the running claim still blocks the key
   */
  public static ClaimResult inProgress(byte[] fingerprint, long leaseRemainingMillis) {
    return new ClaimResult(Kind.IN_PROGRESS, 0, fingerprint, leaseRemainingMillis, null);
  }

  public static ClaimResult completed(byte[] fingerprint, HttpAnswer response) {
    return new ClaimResult(Kind.COMPLETED, 0, fingerprint, 0, response);
  }

  public static ClaimResult notIssued() {
    return NOT_ISSUED_RESULT;
  }

  public static ClaimResult wrongCaller() {
    return WRONG_CALLER_RESULT;
  }

  public Kind kind() {
    return kind;
  }

  /** The fencing token of a won claim: every later complete/release must present it. */
  public long token() {
    return token;
  }

  /** The fingerprint of the request that owns the record (in progress or completed). */
  public byte[] fingerprint() {
    return fingerprint;
  }

  public long remainingMillis() {
    return remainingMillis;
  }

  public HttpAnswer response() {
    return response;
  }
}
