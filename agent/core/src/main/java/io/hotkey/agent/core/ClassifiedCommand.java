package io.hotkey.agent.core;

import io.hotkey.agent.cache.HotKeyReads;
import io.hotkey.agent.redis.CommandSpec;
import java.util.Arrays;

/**
 * One command as both gateways need it, filled by {@link CommandClassifier#classify}: its spec, how
 * it uses its keys, and the keys' hashes and argv positions. The command's argv itself is not kept:
 * the caller passes it along.
 *
 * <p>Each thread keeps its own and classifies command after command into it, so classifying costs
 * no allocation; whoever keeps hashes beyond the command takes a copy ({@link #keptHashes}).
 */
public final class ClassifiedCommand {
  /** Commands with up to this many keys are hashed into the holder's own array. */
  private static final int OWN_CAPACITY = 16;

  private final int[] ownHashes = new int[OWN_CAPACITY];

  CommandSpec spec;
  CommandSpec.Kind kind;
  int keyCount;

  /**
   * The first {@link #keyCount} are the command's, in argv order: {@link #ownHashes}, or an array
   * of the command's own when it has more keys, so that a thread keeps no large array.
   */
  int[] hashes = ownHashes;

  long keyPositions;

  /**
   * The read counters of its hot keys, the first {@link #hotKeyCount}, as {@link
   * CommandClassifier#servableRead} noted them.
   */
  private HotKeyReads[] hotKeys = new HotKeyReads[4];

  int hotKeyCount;

  /** Points {@link #hashes} at an array for {@code keys} keys. */
  void reserve(int keys) {
    hashes = keys <= OWN_CAPACITY ? ownHashes : new int[keys];
  }

  public CommandSpec spec() {
    return spec;
  }

  /** Whether it may change the values of its keys, or of every key. */
  public boolean writes() {
    return kind == CommandSpec.Kind.WRITE || kind == CommandSpec.Kind.WRITE_ALL;
  }

  /** Whether it may change keys it cannot name (FLUSHALL, keyless scripts...). */
  public boolean writesEverything() {
    return kind == CommandSpec.Kind.WRITE_ALL;
  }

  /** Whether its reply depends only on its keys' values, so that it may be answered locally. */
  public boolean cacheableRead() {
    return kind == CommandSpec.Kind.CACHEABLE_READ;
  }

  public int keyCount() {
    return keyCount;
  }

  /** {@code KeyHashes.hash} of the {@code n}th key, in argv order. */
  public int hash(int n) {
    return hashes[n];
  }

  void noteHotKey(HotKeyReads reads) {
    if (hotKeyCount == hotKeys.length) {
      hotKeys = Arrays.copyOf(hotKeys, 2 * hotKeyCount);
    }
    hotKeys[hotKeyCount++] = reads;
  }

  /**
   * Counts what became of the read for each of its hot keys: answered locally ({@code hit}), or
   * sent to Redis.
   */
  public void countHotKeyReads(boolean hit) {
    HotKeyReads.count(hotKeys, hotKeyCount, hit);
  }

  /**
   * The read counters of its hot keys, in a new array for a read whose outcome is known later (a
   * parked read).
   */
  public HotKeyReads[] keptHotKeys() {
    return Arrays.copyOf(hotKeys, hotKeyCount);
  }

  /** One bit per argv index below 64 that holds a key (see {@code CacheKey}). */
  public long keyPositions() {
    return keyPositions;
  }

  /** The key hashes, in a new array for a caller that keeps them (a cache entry, a fill). */
  public int[] keptHashes() {
    return Arrays.copyOf(hashes, keyCount);
  }
}
