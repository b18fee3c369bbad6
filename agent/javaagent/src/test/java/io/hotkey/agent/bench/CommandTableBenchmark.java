package io.hotkey.agent.bench;

import io.hotkey.agent.redis.CommandSpec;
import io.hotkey.agent.redis.RedisCommandTable;
import java.nio.charset.StandardCharsets;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the command table costs per command on the hot path: {@link RedisCommandTable#lookup} of the
 * name as a client sends it, then {@link CommandSpec#keyCount} and {@link CommandSpec#keyIndex} of
 * every key, as the gateway calls them. {@code everyShape=true} first runs every kind of key
 * position (ranges, numkeys, SORT, MIGRATE, GEORADIUS, XREAD, subcommands, unknown commands)
 * through the same calls, so that the JIT compiles them for a service that sends them all, not only
 * the measured command.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class CommandTableBenchmark {

  /** One command line of each kind of key position. */
  private static final String[] EVERY_SHAPE = {
    "GET k",
    "MGET a b c",
    "HSET h f v",
    "PING",
    "EVAL s 2 a b x",
    "ZUNIONSTORE d 2 a b",
    "SORT k LIMIT 0 1 STORE d",
    "MIGRATE h 1 <empty> 0 5 AUTH p KEYS a b",
    "GEORADIUS g 1 2 3 km STORE d",
    "XREAD COUNT 1 BLOCK 0 STREAMS a b 0 0",
    "OBJECT ENCODING k",
    "FOO a b"
  };

  @Param({"GET k", "MGET a b c", "HSET h f v"})
  public String command;

  @Param({"false", "true"})
  public boolean everyShape;

  private byte[][] argv;

  @Setup(Level.Trial)
  public void setUp() {
    argv = argv(command);
    if (everyShape) {
      byte[][][] lines = new byte[EVERY_SHAPE.length][][];
      for (int i = 0; i < lines.length; i++) {
        lines[i] = argv(EVERY_SHAPE[i]);
      }
      long sink = 0;
      for (int round = 0; round < 50_000; round++) {
        for (byte[][] line : lines) {
          sink += keys(line);
        }
      }
      if (sink == 42) {
        throw new AssertionError();
      }
    }
  }

  @Benchmark
  public int lookupAndKeys() {
    return keys(argv);
  }

  /** The lookup alone, to tell its share from the key positions'. */
  @Benchmark
  public CommandSpec lookupOnly() {
    return RedisCommandTable.lookup(argv[0]);
  }

  private static int keys(byte[][] argv) {
    CommandSpec spec = RedisCommandTable.lookup(argv[0]);
    int n = spec.keyCount(argv);
    int sum = n;
    for (int i = 0; i < n; i++) {
      sum += spec.keyIndex(argv, i);
    }
    return sum;
  }

  /** "MSET k1 v1" as argv; "{@code <empty>}" stands for an empty argument. */
  private static byte[][] argv(String line) {
    String[] parts = line.split(" ");
    byte[][] argv = new byte[parts.length][];
    for (int i = 0; i < parts.length; i++) {
      argv[i] =
          parts[i].equals("<empty>") ? new byte[0] : parts[i].getBytes(StandardCharsets.US_ASCII);
    }
    return argv;
  }
}
