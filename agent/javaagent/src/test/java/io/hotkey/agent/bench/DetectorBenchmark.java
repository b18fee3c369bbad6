package io.hotkey.agent.bench;

import io.hotkey.agent.detect.DetectorSettings;
import io.hotkey.agent.detect.HotKeyDetector;
import io.hotkey.agent.detect.HotKeyListener;
import io.hotkey.agent.detect.Zipf;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Cost of {@link HotKeyDetector#record} on a Zipf(1.0) stream over 100,000 distinct keys (keys and
 * hashes generated before the measurement), with the agent's production tick (every 100 ms) running
 * on a background thread. Throughput mode: ops/s per benchmark; 1 vs 2 threads shows the scaling of
 * the striped tables. {@code sampling=1} counts every access (what the sketch costs), {@code
 * sampling=16} is the default at the default threshold and window.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DetectorBenchmark {

  static final int STREAM = 1 << 20;

  /** One detector shared by all benchmark threads, ticked in the background. */
  @State(Scope.Benchmark)
  public static class Shared {
    @Param({"1", "16"})
    public int sampling;

    HotKeyDetector detector;
    DetectorTicker ticker;
    byte[][] keys;
    int[] hashes;
    boolean[] writes;

    @Setup(Level.Trial)
    public void setUp() {
      Zipf zipf = new Zipf(100_000, 1.0, 42);
      int[] stream = zipf.sample(STREAM, 7);
      keys = new byte[STREAM][];
      hashes = new int[STREAM];
      writes = new boolean[STREAM];
      for (int i = 0; i < STREAM; i++) {
        keys[i] = zipf.key(stream[i]);
        hashes[i] = zipf.hash(stream[i]);
        writes[i] = (i % 10) < 3;
      }
      detector =
          new HotKeyDetector(
              DetectorSettings.of(Duration.ofSeconds(1), 1000, 100, Duration.ofSeconds(10))
                  .toBuilder()
                  .sampling(sampling)
                  .build(),
              System::nanoTime,
              HotKeyListener.NONE);
      ticker = new DetectorTicker(detector);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
      ticker.close();
    }
  }

  /** Each thread walks the stream from its own random start. */
  @State(Scope.Thread)
  public static class Cursor {
    int i;

    @Setup(Level.Trial)
    public void setUp() {
      i = ThreadLocalRandom.current().nextInt(STREAM);
    }
  }

  @Benchmark
  @Threads(1)
  public void record1Thread(Shared s, Cursor c) {
    record(s, c);
  }

  @Benchmark
  @Threads(2)
  public void record2Threads(Shared s, Cursor c) {
    record(s, c);
  }

  /**
   * The same walk over the pre-generated stream without recording: what the harness and the stream
   * itself cost on this machine, to be subtracted from {@code record1Thread}.
   */
  @Benchmark
  @Threads(1)
  public void streamOnly1Thread(Shared s, Cursor c, Blackhole sink) {
    int i = c.i;
    c.i = (i + 1) & (STREAM - 1);
    sink.consume(s.keys[i]);
    sink.consume(s.hashes[i]);
    sink.consume(s.writes[i]);
  }

  private static void record(Shared s, Cursor c) {
    int i = c.i;
    c.i = (i + 1) & (STREAM - 1);
    s.detector.record(s.keys[i], s.hashes[i], s.writes[i]);
  }
}
