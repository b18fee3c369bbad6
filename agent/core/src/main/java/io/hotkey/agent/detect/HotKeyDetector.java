package io.hotkey.agent.detect;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * Finds the keys whose access rate crosses a threshold, in memory fixed at construction.
 *
 * <h2>Data flow</h2>
 *
 * <pre>
 *  app threads ──record()──► StripedSketch: own pending buffer ──(32 at a time)──► stripe's table
 *                            (HeavyKeeperTable, plain int writes)      │  generation flips every tick
 *  tick thread ──tick()──► SlotHarvest: the generation retired one tick earlier ──► candidates
 *                          (summed over rows and stripes), then cleared
 *                     ──► KeyWindow: per key a ring of {@code slots} slot counts (fixed capacity,
 *                          the smallest entries give way to bigger newcomers)
 *                     ──► PromotionPolicy: promote / demote ──► listener, the published hot keys
 * </pre>
 *
 * Each part is a class of its own: {@link StripedSketch} (recording, lock-free, on the
 * application's threads), {@link SlotHarvest} (one slot's candidates and their counts), {@link
 * KeyWindow} (the tracked keys' counts over the window) and {@link PromotionPolicy} (which keys are
 * hot). This class composes them and runs the tick.
 *
 * <h2>Bounded memory</h2>
 *
 * The sketch's tables ({@code 3 * stripes * depth * width} buckets with their key prefix), the
 * harvest's candidate map ({@code stripes * depth * width} entries) and the window ({@code
 * capacity} keys × {@code slots} counters) are all allocated up front, as flat arrays. Nothing
 * grows with the number of distinct keys; {@link #memoryBytes()} is computed once. The only
 * allocations after construction are {@link KeyRate} lists (the hot keys, published by the tick;
 * the top keys, made when asked for), and one {@link PendingAccesses} per recording thread (40
 * bytes, about 350 once it buffers; not included in {@link #memoryBytes()}).
 *
 * <h2>Keys</h2>
 *
 * Up to {@link DetectorSettings#keyBytes()} bytes of a key are stored. Longer keys are tracked by
 * hash + length + prefix and reported with {@link KeyRate#truncated()} true. The {@code hash} given
 * to {@link #record} must be {@link KeyHashes#hash(byte[])} of the key: it selects the buckets, it
 * is the key's identity on the recording path (see {@link HeavyKeeperTable#add}), and the harvest
 * re-hashes stored keys to drop torn copies, so a key recorded with another hash function is never
 * reported. A key whose count in a bucket stays at 1 for a whole slot is not harvested (its bytes
 * are copied only at its second access, see {@link HeavyKeeperTable#add}).
 */
public final class HotKeyDetector {

  private volatile DetectorSettings settings;
  private final LongSupplier nanoClock;
  private final HotKeyListener listener;

  private final StripedSketch sketch;
  private final SlotHarvest harvest;
  private final KeyWindow window;
  private final PromotionPolicy policy;
  private final long memoryBytes;

  /** Published after every tick; read by hotKeys() from any thread. */
  private volatile List<KeyRate> hot = List.of();

  public HotKeyDetector(
      DetectorSettings settings, LongSupplier nanoClock, HotKeyListener listener) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    this.listener = listener == null ? HotKeyListener.NONE : listener;
    sketch = new StripedSketch(settings);
    harvest = new SlotHarvest(settings);
    window = new KeyWindow(settings, harvest.capacity());
    policy = new PromotionPolicy(settings);
    memoryBytes =
        sketch.memoryBytes()
            + harvest.memoryBytes()
            + window.memoryBytes()
            + policy.memoryBytes()
            + 512; // object headers and fields of the parts
  }

  public DetectorSettings settings() {
    return settings;
  }

  /**
   * Applies a reloaded threshold, top-k and cool-down from the next tick on. The tables stay as
   * they were sized: the sampling, and the window, stay too.
   *
   * @throws IllegalArgumentException when {@code topK} exceeds the keys the window was sized for
   */
  public synchronized void retune(long threshold, int topK, Duration coolDown) {
    DetectorSettings next =
        settings.toBuilder().threshold(threshold).topK(topK).coolDown(coolDown).build();
    policy.retune(next);
    settings = next;
  }

  /**
   * Hot path: counts one access to {@code key}. Called for every Redis command's key.
   *
   * <p>Only one access in {@link DetectorSettings#sampling()} is counted, drawn at random (from the
   * thread's {@link ThreadLocalRandom}, so that no key or order of keys is favoured), and stands
   * for that many in every count and rate reported. An access that is not drawn costs the draw
   * alone: nothing of the detector's is read but the mask.
   *
   * <p>No lock, no atomic, no allocation but a thread's {@link PendingAccesses}: a thread's
   * accesses go into its buffer (a {@code ThreadLocal} lookup and a few plain stores), which is
   * counted into the sketch when it is full, when the thread records in a later slot than its
   * oldest pending access (then into that later slot, so a slot's rate includes at most one buffer
   * per thread that belonged to the previous one), or when the thread calls {@link #tick()}. The
   * buffer holds one access more per {@link PendingAccesses#GROWTH} the thread has recorded, up to
   * {@link PendingAccesses#CAPACITY}: a thread's first accesses are counted one by one, so a
   * short-lived thread loses none, and a thread that stops recording leaves at most one in {@code
   * GROWTH} of its accesses, and fewer than {@code CAPACITY}, pending until it records again, or
   * for good if it ends: too few to make a key hot or keep it hot. Safe from any number of threads;
   * never throws.
   *
   * <p>Stripes are handed out round-robin as threads first record, so the threads of a pool get
   * distinct stripes (and decay coins) up to the number of stripes (of coins).
   *
   * @param key the key bytes, not null; not modified, read again when counted and not retained
   *     after (a prefix is copied when a bucket is named). Should the array change before it is
   *     counted (an application reusing a byte[] key it gave Jedis), the count is lost: the harvest
   *     re-hashes the bytes it stored and drops a mismatch (a key longer than {@code keyBytes} can
   *     then be reported with the changed prefix).
   * @param hash {@link KeyHashes#hash(byte[])} of {@code key}
   * @param write whether the command writes the key
   */
  public void record(byte[] key, int hash, boolean write) {
    sketch.record(key, hash, write);
  }

  /**
   * Advances the window by one slot: flips the sketch's generation, harvests the slot that closed
   * one tick ago, recomputes rates, promotes and demotes (calling the listener), publishes the hot
   * keys. To be called every {@link DetectorSettings#slot()} by one thread at a time (it is
   * synchronized only to make misuse harmless; recording never takes this lock). Never throws
   * because of the listener.
   */
  public synchronized void tick() {
    int retired = sketch.retire();
    window.advance();
    harvest.collect(sketch, retired);
    window.add(harvest);
    PromotionPolicy.Changes changes = policy.decide(window, nanoClock.getAsLong());
    hot = window.byCount(Integer.MAX_VALUE, true);
    for (KeyRate k : changes.demoted) {
      try {
        listener.onDemoted(k);
      } catch (Throwable ignored) {
        // The agent never breaks the application; a failing listener only loses its own events.
      }
    }
    for (KeyRate k : changes.promoted) {
      try {
        listener.onPromoted(k);
      } catch (Throwable ignored) {
        // See above.
      }
    }
  }

  /**
   * Up to {@code n} tracked keys by windowed rate, highest first (as of the last tick). Built when
   * asked for, under the tick's lock, rather than at every tick: the window holds up to {@code
   * capacity} keys, and the report that reads them is rare.
   */
  public synchronized List<KeyRate> topKeys(int n) {
    return window.byCount(n, false);
  }

  /** The currently promoted keys, highest rate first (as of the last tick). */
  public List<KeyRate> hotKeys() {
    return hot;
  }

  /**
   * The detector's footprint in bytes, computed at construction from the settings: sketch tables,
   * the tick thread's candidate map and window, and the lists of keys it hands out. It does not
   * depend on the traffic (object headers and alignment estimated for a 64-bit JVM with compressed
   * oops).
   */
  public long memoryBytes() {
    return memoryBytes;
  }
}
