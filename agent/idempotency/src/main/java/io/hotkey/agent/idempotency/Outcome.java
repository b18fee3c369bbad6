package io.hotkey.agent.idempotency;

/** What the engine decided for one request on a configured route. */
public enum Outcome {
  /** Claim won: run the handler, then {@link Execution#finish} or {@link Execution#fail}. */
  EXECUTE,
  /** A completed record: answer with the stored response plus {@code Idempotent-Replayed: true}. */
  REPLAY,
  /**
   * A keyless request on a dedupe route, identical to one completed within the window: its stored
   * answer plus {@code Idempotent-Replayed: true}.
   */
  DEDUPLICATED,
  /** The first request with this key is still running: 409 with {@code Retry-After}. */
  CONFLICT,
  /** The key was used before with another method/path/query/body: 422. */
  MISMATCH,
  /** The route requires a key and the request has none: 400. */
  MISSING_KEY,
  /** The header is present but not a valid key: 400. */
  INVALID_KEY,
  /** A scope cookie is too long or holds a control character: 400. */
  INVALID_COOKIE,
  /** The token endpoint issued a token: 201 with it. */
  TOKEN_ISSUED,
  /** A token route got no token: 400. */
  TOKEN_MISSING,
  /** A token route got a token that is malformed, unknown or expired: 400. */
  TOKEN_UNKNOWN,
  /** A token route got a token issued to another caller: 400. */
  TOKEN_WRONG_CALLER,
  /** A token route got a body larger than max-body, which cannot be checked: 413. */
  BODY_TOO_LARGE,
  /** The store failed and the policy is reject: 503 with {@code Retry-After}. */
  STORE_FAILURE,
  /**
   * Run the handler untouched (no key on an optional route, store failure with policy allow, body
   * too large).
   */
  PASS
}
