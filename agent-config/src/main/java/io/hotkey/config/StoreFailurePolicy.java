package io.hotkey.config;

/** What a configured route does when the idempotency store cannot be reached. */
public enum StoreFailurePolicy {
  /** Answer 503, so a retry cannot run the handler twice. */
  REJECT,
  /** Pass the request through without deduplication. */
  ALLOW
}
