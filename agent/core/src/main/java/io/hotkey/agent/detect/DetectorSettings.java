package io.hotkey.agent.detect;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable sizing and policy of a {@link HotKeyDetector}. Build with {@link #of} or {@link
 * #builder()}; every value not set gets a default derived from the others.
 *
 * <ul>
 *   <li>{@code window} (default 1s): sliding window the rates are measured over.
 *   <li>{@code threshold} (default 1000): accesses per second that make a key hot.
 *   <li>{@code topK} (default 100): most keys hot at once.
 *   <li>{@code coolDown} (default 10s): how long a hot key stays hot while below threshold.
 *   <li>{@code slots} (default 10): the window is made of this many slots; {@link #slot()} is the
 *       tick period, and the rate resolution.
 *   <li>{@code stripes} (default: next power of two {@code >= 2 * availableProcessors}, at most 16
 *       by default and 64 when set): independent sketches, one per recording thread up to that many
 *       threads.
 *   <li>{@code width}, {@code depth} (default {@code nextPow2(max(256, 16 * topK))} and 2): the
 *       HeavyKeeper table of each stripe and generation.
 *   <li>{@code keyBytes} (default 64, 8..1024): key bytes stored per bucket; longer keys are
 *       identified by hash + length + this prefix and reported truncated.
 *   <li>{@code capacity} (default {@code max(256, 8 * topK)}): keys whose window counts the tick
 *       thread keeps (the candidates for {@link HotKeyDetector#topKeys(int)} and promotion).
 *   <li>{@code sampling} (default {@link #autoSampling}): one access in this many (a power of two)
 *       is counted, each standing for {@code sampling} accesses; 1 counts every access.
 * </ul>
 */
public final class DetectorSettings {

  /**
   * Default cap on stripes: each costs about 1.4 MB at default width, and spreading a key's counts
   * over many stripes makes it harder to see, so big machines share stripes between threads.
   */
  static final int DEFAULT_MAX_STRIPES = 16;

  /** Largest number of stripes (each costs 3 tables). */
  public static final int MAX_STRIPES = 64;

  /** Largest per-bucket key prefix. */
  public static final int MAX_KEY_BYTES = 1024;

  /** Sparsest sampling: one access in this many. */
  public static final int MAX_SAMPLING = 1 << 16;

  /**
   * What {@link #autoSampling} keeps counted of a key at exactly the threshold, per window: at
   * least this many accesses, so that its estimated rate is off by 14% (one standard deviation) at
   * most. The threshold becomes a narrow band: a key at 1.5 times it is hot at 99.9% of ticks, one
   * at 1.25 times at 95%, one at 0.75 times at 3% (then hot for the cool-down), one at half of it
   * never. Twitter's twemcache decides on 10 sampled accesses.
   */
  static final int SAMPLED_AT_THRESHOLD = 50;

  private final Duration window;
  private final long threshold;
  private final int topK;
  private final Duration coolDown;
  private final int slots;
  private final int stripes;
  private final int width;
  private final int depth;
  private final int keyBytes;
  private final int capacity;
  private final int sampling;

  private DetectorSettings(Builder b) {
    this.window = Objects.requireNonNull(b.window, "window");
    this.coolDown = Objects.requireNonNull(b.coolDown, "coolDown");
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("window must be > 0, was " + window);
    }
    if (coolDown.isNegative()) {
      throw new IllegalArgumentException("coolDown must be >= 0, was " + coolDown);
    }
    if (b.threshold < 1) {
      throw new IllegalArgumentException("threshold must be >= 1 access/s, was " + b.threshold);
    }
    if (b.topK < 1 || b.topK > 1 << 16) {
      throw new IllegalArgumentException("topK must be in [1, 65536], was " + b.topK);
    }
    if (b.slots < 1 || b.slots > 1000) {
      throw new IllegalArgumentException("slots must be in [1, 1000], was " + b.slots);
    }
    if (window.toNanos() / b.slots < 1_000_000L) {
      throw new IllegalArgumentException(
          "window / slots must be >= 1ms, was " + window + " / " + b.slots);
    }
    this.threshold = b.threshold;
    this.topK = b.topK;
    this.slots = b.slots;

    int s =
        b.stripes > 0
            ? b.stripes
            : Math.min(DEFAULT_MAX_STRIPES, 2 * Runtime.getRuntime().availableProcessors());
    this.stripes = Math.min(MAX_STRIPES, nextPow2(s));

    int w = b.width > 0 ? b.width : Math.max(256, 16 * topK);
    if (w > 1 << 20) {
      throw new IllegalArgumentException("width must be <= 2^20, was " + w);
    }
    this.width = Math.max(16, nextPow2(w));
    this.depth = b.depth > 0 ? b.depth : 2;
    if (depth > 8) {
      throw new IllegalArgumentException("depth must be in [1, 8], was " + depth);
    }
    this.keyBytes = b.keyBytes > 0 ? b.keyBytes : 64;
    if (keyBytes < 8 || keyBytes > MAX_KEY_BYTES) {
      throw new IllegalArgumentException("keyBytes must be in [8, 1024], was " + keyBytes);
    }
    this.capacity = b.capacity > 0 ? b.capacity : Math.max(256, 8 * topK);
    if (capacity < topK || capacity > 1 << 20) {
      throw new IllegalArgumentException(
          "capacity must be in [topK, 2^20], was " + capacity + " (topK " + topK + ")");
    }
    this.sampling = b.sampling != 0 ? b.sampling : autoSampling(window, threshold);
    if (sampling < 1 || sampling > MAX_SAMPLING || Integer.bitCount(sampling) != 1) {
      throw new IllegalArgumentException(
          "sampling must be a power of two in [1, " + MAX_SAMPLING + "], was " + sampling);
    }
  }

  /**
   * The default sampling: the sparsest power of two that still counts {@link #SAMPLED_AT_THRESHOLD}
   * accesses per window of a key at the threshold (1 when the threshold times the window is below
   * twice that). For the defaults, 1000/s over 1s: one access in 16.
   *
   * <p>Why sample: on a service whose keys are all cold, counting every access was nearly all of
   * what the agent cost (docs/performance-history.md, seventh round), and the rates that make a key
   * worth caching are far above what a sample of 50 per window can tell apart; twemcache finds hot
   * keys from 10.
   */
  public static int autoSampling(Duration window, long threshold) {
    double atThreshold = threshold * (window.toNanos() / 1e9);
    long n = (long) (atThreshold / SAMPLED_AT_THRESHOLD);
    return n < 1 ? 1 : (int) Math.min(MAX_SAMPLING, Long.highestOneBit(n));
  }

  /** The four product settings; everything else defaulted. */
  public static DetectorSettings of(Duration window, long threshold, int topK, Duration coolDown) {
    return builder().window(window).threshold(threshold).topK(topK).coolDown(coolDown).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder preset with this object's values (stripes, width, ... as resolved). */
  public Builder toBuilder() {
    return new Builder()
        .window(window)
        .threshold(threshold)
        .topK(topK)
        .coolDown(coolDown)
        .slots(slots)
        .stripes(stripes)
        .width(width)
        .depth(depth)
        .keyBytes(keyBytes)
        .capacity(capacity)
        .sampling(sampling);
  }

  public Duration window() {
    return window;
  }

  public long threshold() {
    return threshold;
  }

  public int topK() {
    return topK;
  }

  public Duration coolDown() {
    return coolDown;
  }

  public int slots() {
    return slots;
  }

  /** The tick period: {@code window / slots}. */
  public Duration slot() {
    return Duration.ofNanos(window.toNanos() / slots);
  }

  public int stripes() {
    return stripes;
  }

  public int width() {
    return width;
  }

  public int depth() {
    return depth;
  }

  public int keyBytes() {
    return keyBytes;
  }

  public int capacity() {
    return capacity;
  }

  /** One access in this many is counted. */
  public int sampling() {
    return sampling;
  }

  static int nextPow2(int x) {
    if (x <= 1) {
      return 1;
    }
    return Integer.highestOneBit(x - 1) << 1;
  }

  @Override
  public String toString() {
    return "DetectorSettings{window="
        + window
        + ", threshold="
        + threshold
        + "/s, topK="
        + topK
        + ", coolDown="
        + coolDown
        + ", slots="
        + slots
        + ", stripes="
        + stripes
        + ", width="
        + width
        + ", depth="
        + depth
        + ", keyBytes="
        + keyBytes
        + ", capacity="
        + capacity
        + ", sampling=1/"
        + sampling
        + '}';
  }

  /** Mutable builder; {@code 0} for an int means "use the default". */
  public static final class Builder {
    private Duration window = Duration.ofSeconds(1);
    private long threshold = 1000;
    private int topK = 100;
    private Duration coolDown = Duration.ofSeconds(10);
    private int slots = 10;
    private int stripes;
    private int width;
    private int depth;
    private int keyBytes;
    private int capacity;
    private int sampling;

    private Builder() {}

    public Builder window(Duration window) {
      this.window = window;
      return this;
    }

    public Builder threshold(long perSecond) {
      this.threshold = perSecond;
      return this;
    }

    public Builder topK(int topK) {
      this.topK = topK;
      return this;
    }

    public Builder coolDown(Duration coolDown) {
      this.coolDown = coolDown;
      return this;
    }

    public Builder slots(int slots) {
      this.slots = slots;
      return this;
    }

    /** Rounded up to a power of two, capped at 64. */
    public Builder stripes(int stripes) {
      this.stripes = stripes;
      return this;
    }

    /** Buckets per row; rounded up to a power of two (at least 16). */
    public Builder width(int width) {
      this.width = width;
      return this;
    }

    public Builder depth(int depth) {
      this.depth = depth;
      return this;
    }

    public Builder keyBytes(int keyBytes) {
      this.keyBytes = keyBytes;
      return this;
    }

    public Builder capacity(int capacity) {
      this.capacity = capacity;
      return this;
    }

    /** One access in {@code sampling} (a power of two) is counted; 1 counts every access. */
    public Builder sampling(int sampling) {
      this.sampling = sampling;
      return this;
    }

    public DetectorSettings build() {
      return new DetectorSettings(this);
    }
  }
}
