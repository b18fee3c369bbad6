package io.hotkey.agent.cache;

/** A frozen reply with the invalidation stamp it was read under (see {@link KeyVersions}). */
public final class CachedReply {
  private final Object frozen;
  private final long[] stamp;
  private final int weight;
  private final long storedAtNanos = System.nanoTime();

  CachedReply(Object frozen, long[] stamp, int weight) {
    this.frozen = frozen;
    this.stamp = stamp;
    this.weight = weight;
  }

  long ageNanos() {
    return System.nanoTime() - storedAtNanos;
  }

  /** A copy the caller owns. */
  public Object freshRaw() {
    return ReplySnapshots.thaw(frozen);
  }

  /**
   * The stored reply itself, for adapters that only read it (a reply tape replayed into a client's
   * decoder, which builds the caller's own objects). Must never be modified or handed to the
   * application.
   */
  public Object shared() {
    return frozen;
  }

  long[] stamp() {
    return stamp;
  }

  int weight() {
    return weight;
  }
}
