package io.hotkey.config;

/** Where idempotency records live: this JVM only, or a Redis shared by every instance. */
public enum IdempotencyStore {
  MEMORY,
  REDIS
}
