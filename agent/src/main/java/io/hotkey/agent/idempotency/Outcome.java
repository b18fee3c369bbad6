package io.hotkey.agent.idempotency;

/** What the engine decided for one request on a configured route. */
public enum Outcome {
  /** Claim won: run the handler, then {@link Execution#finish} or {@link Execution#fail}. */
  EXECUTE,
  /** A completed record: answer with the stored response plus {@code Idempotent-Replayed: true}. */
  REPLAY,
  /** The first request with this key is still running: 409 with {@code Retry-After}. */
  CONFLICT,
  /** The key was used before with another method/path/query/body: 422. */
  MISMATCH,
  /** The route requires a key and the request has none: 400. */
  MISSING_KEY,
  /** The header is present but not a valid key: 400. */
  INVALID_KEY,
  /** The store failed and the policy is reject: 503 with {@code Retry-After}. */
  STORE_FAILURE,
  /**
   * Run the handler untouched (no key on an optional route, store failure with policy allow, body
   * too large).
   */
  PASS
}
