package io.hotkey.config;

/** How writes made by other processes reach this JVM's local entries. */
public enum Invalidation {
  /**
   * Redis' client tracking reports them within milliseconds; {@code hotkey.cache.ttl} stays the
   * bound.
   */
  TRACKING,
  /** Only {@code hotkey.cache.ttl} bounds them. */
  TTL
}
