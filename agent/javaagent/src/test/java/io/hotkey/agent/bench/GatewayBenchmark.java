package io.hotkey.agent.bench;

import io.hotkey.agent.cache.CaffeineNearCache;
import io.hotkey.agent.cache.FillGate;
import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.KeysWithoutTtl;
import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.core.FieldReply;
import io.hotkey.agent.core.HotKeyRegistry;
import io.hotkey.agent.core.RedisGateway;
import io.hotkey.agent.core.ReplyOutcome;
import io.hotkey.agent.core.ServedReply;
import io.hotkey.agent.core.ServingGate;
import io.hotkey.agent.core.multiplexed.DispatchOutcome;
import io.hotkey.agent.core.multiplexed.LocalAnswerCheck;
import io.hotkey.agent.core.multiplexed.MultiplexedGateway;
import io.hotkey.agent.core.multiplexed.ReplyTape;
import io.hotkey.agent.core.threadbound.ThreadBoundGateway;
import io.hotkey.agent.detect.DetectorSettings;
import io.hotkey.agent.detect.HotKeyDetector;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.detect.KeyRate;
import io.hotkey.config.Glob;
import io.hotkey.config.KeyFilter;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the agent adds to each command of a multiplexed client (Lettuce) when nothing is hot: the
 * whole per-command path the adapter drives, dispatch, the reply's decoder event and the command's
 * end, for the cold-key benchmark's mix (uniform keys out of 100k, 90% {@code GET key}, 10% {@code
 * SET key value}), each command with a reply object of its own as Lettuce allocates one, carrying
 * the field the agent adds to Lettuce's reply class (the {@code ByIdentity} variant measures
 * replies without it, as when the agent is attached after Lettuce loaded). The {@code hot} methods
 * measure a served hit instead: a GET of one of ten hot keys answered from the local cache, through
 * either gateway. Run it with {@link BenchMain}, e.g. {@code -Dexec.args="GatewayBenchmark -f 2 -wi
 * 5 -i 6 -r 2s"}: its first seconds, and sometimes a whole fork, run several times slower while the
 * JIT settles, so look at the iterations, not only the mean.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class GatewayBenchmark {
  static final int KEYS = 100_000;
  static final byte[] GET = "GET".getBytes(StandardCharsets.US_ASCII);
  static final byte[] SET = "SET".getBytes(StandardCharsets.US_ASCII);

  /** A SET's value, 64 bytes like the demo workloads'. */
  static final byte[] VALUE = "v".repeat(64).getBytes(StandardCharsets.US_ASCII);

  static final ByteBuffer REPLY = ByteBuffer.wrap(new byte[64]);
  static final ByteBuffer OK = ByteBuffer.wrap("OK".getBytes(StandardCharsets.US_ASCII));

  /** One gateway as the agent builds it, its detector ticked in the background. */
  @State(Scope.Benchmark)
  public static class Agent {
    RedisGateway core;
    HotKeyRegistry registry;
    MultiplexedGateway gateway;
    DetectorTicker ticker;
    byte[][] keys = new byte[KEYS][];
    ByteBuffer[] setArguments = new ByteBuffer[KEYS];
    final Object connection = new Object();

    @Setup(Level.Trial)
    public void setUp() {
      KeyVersions versions = new KeyVersions();
      registry =
          new HotKeyRegistry(
              true, new KeyFilter(List.of(Glob.parse("*")), List.of()), Double.POSITIVE_INFINITY);
      HotKeyDetector detector =
          new HotKeyDetector(
              DetectorSettings.of(Duration.ofSeconds(1), 1000, 100, Duration.ofSeconds(10)),
              System::nanoTime,
              registry);
      core =
          new RedisGateway(
              detector,
              registry,
              new CaffeineNearCache(
                  64 << 20,
                  256 << 10,
                  Duration.ofSeconds(5),
                  0,
                  Duration.ZERO,
                  versions,
                  FillGate.OPEN,
                  KeysWithoutTtl.INSTANCE,
                  KeysWithoutTtl.INSTANCE),
              versions,
              new AgentErrors(0),
              ServingGate.OPEN);
      gateway = core.multiplexed();
      for (int i = 0; i < KEYS; i++) {
        byte[] key = ("product:" + i).getBytes(StandardCharsets.US_ASCII);
        keys[i] = key;
        setArguments[i] = ByteBuffer.wrap(bulkStrings(key, VALUE));
      }
      ticker = new DetectorTicker(detector);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
      ticker.close();
    }
  }

  /** Keys read by the {@code hot} methods, all of them hot. */
  static final int HOT_KEYS = 10;

  /**
   * {@link Agent} with {@link #HOT_KEYS} keys promoted before the measurement (the detector would
   * promote them too, a second later), so that nearly every GET is a hit: a miss fills the entry
   * again once per TTL.
   */
  @State(Scope.Benchmark)
  public static class Serving extends Agent {
    ThreadBoundGateway threadBound;
    byte[][] hotKeys = new byte[HOT_KEYS][];

    @Setup(Level.Trial)
    public void promoteHotKeys() {
      threadBound = core.threadBound();
      for (int i = 0; i < HOT_KEYS; i++) {
        byte[] key = ("hot:" + i).getBytes(StandardCharsets.US_ASCII);
        hotKeys[i] = key;
        registry.onPromoted(new KeyRate(key, key.length, KeyHashes.hash(key), 1000, 0, 1000));
      }
    }
  }

  private static byte[] bulkStrings(byte[]... arguments) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] argument : arguments) {
      out.writeBytes(("$" + argument.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.writeBytes(argument);
      out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    return out.toByteArray();
  }

  @Benchmark
  @Threads(1)
  public Object coldCommand1Thread(Agent agent) {
    return command(agent);
  }

  @Benchmark
  @Threads(2)
  public Object coldCommand2Threads(Agent agent) {
    return command(agent);
  }

  /**
   * The decoder's side of an untracked command (a cold GET): its reply event and its end, on the
   * I/O thread.
   */
  @Benchmark
  @Threads(1)
  public Object untrackedReply1Thread(Agent agent) {
    return untrackedReply(agent, new FieldReply());
  }

  @Benchmark
  @Threads(1)
  public Object untrackedReplyByIdentity1Thread(Agent agent) {
    return untrackedReply(agent, new Object());
  }

  private static Object untrackedReply(Agent agent, Object reply) {
    agent.gateway.onReplyBytes(reply, REPLY, false);
    return agent.gateway.onCommandDone(reply);
  }

  /** Only the GETs of {@link #coldCommand1Thread}. */
  @Benchmark
  @Threads(1)
  public Object coldGet1Thread(Agent agent) {
    return command(agent, 0, false);
  }

  /**
   * Only the SETs of {@link #coldCommand1Thread}: arguments recorded as added (Lettuce's {@code
   * StringCodec.UTF8}).
   */
  @Benchmark
  @Threads(1)
  public Object coldSet1Thread(Agent agent) {
    return command(agent, 1, false);
  }

  /**
   * SETs whose arguments the hook reads from their wire encoding (other codecs, {@code SET} with
   * options).
   */
  @Benchmark
  @Threads(1)
  public Object coldSetEncoded1Thread(Agent agent) {
    return command(agent, 1, true);
  }

  private static Object command(Agent agent) {
    return command(agent, 10, false);
  }

  /** A GET or, one time in {@code setEvery}, a SET (0: never, 1: always) of a random key. */
  private static Object command(Agent agent, int setEvery, boolean encodedSets) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    int key = random.nextInt(KEYS);
    Object command = new Object();
    Object reply = new FieldReply();
    MultiplexedGateway gateway = agent.gateway;
    if (gateway.resumption(command, LocalAnswerCheck.ALWAYS) == null) {
      if (setEvery > 0 && random.nextInt(setEvery) == 0) {
        if (encodedSets) {
          gateway.dispatch(
              "lettuce",
              agent.connection,
              command,
              reply,
              SET,
              agent.setArguments[key],
              2,
              LocalAnswerCheck.ALWAYS);
        } else {
          gateway.dispatch(
              "lettuce",
              agent.connection,
              command,
              reply,
              new byte[][] {SET, agent.keys[key], VALUE},
              LocalAnswerCheck.ALWAYS);
        }
        gateway.onReplyBytes(reply, OK, false);
      } else {
        gateway.dispatch(
            "lettuce",
            agent.connection,
            command,
            reply,
            new byte[][] {GET, agent.keys[key]},
            LocalAnswerCheck.ALWAYS);
        gateway.onReplyBytes(reply, REPLY, false);
      }
    }
    return gateway.onCommandDone(reply);
  }

  /** A GET of a hot key on Lettuce, answered by replaying its entry's recorded reply. */
  @Benchmark
  @Threads(1)
  public Object hotGet1Thread(Serving agent) {
    return hotGet(agent);
  }

  @Benchmark
  @Threads(2)
  public Object hotGet2Threads(Serving agent) {
    return hotGet(agent);
  }

  /** A GET of a hot key on Jedis, answered with a fresh copy of its entry's raw reply. */
  @Benchmark
  @Threads(2)
  public Object hotGetThreadBound2Threads(Serving agent) {
    ThreadBoundGateway gateway = agent.threadBound;
    byte[][] argv = {GET, agent.hotKeys[ThreadLocalRandom.current().nextInt(HOT_KEYS)]};
    ServedReply served = gateway.beginRead("jedis", agent.connection, null, argv, argv);
    if (served == null) {
      // the fill of its entry: the first read of a key, then one per TTL
      gateway.onSend(agent.connection, null, argv, argv);
      gateway.onReplyRead(agent.connection, ReplyOutcome.VALUE);
      gateway.onRawReply(VALUE);
    }
    gateway.endRead(false);
    return served;
  }

  private static Object hotGet(Serving agent) {
    Object command = new Object();
    Object reply = new FieldReply();
    MultiplexedGateway gateway = agent.gateway;
    DispatchOutcome outcome = gateway.resumption(command, LocalAnswerCheck.ALWAYS);
    if (outcome == null) {
      byte[][] argv = {GET, agent.hotKeys[ThreadLocalRandom.current().nextInt(HOT_KEYS)]};
      outcome =
          gateway.dispatch(
              "lettuce", agent.connection, command, reply, argv, LocalAnswerCheck.ALWAYS);
    }
    ReplyTape.Cursor tape = outcome.replay();
    Object value = null;
    if (tape != null) {
      while (tape.next()) {
        if (tape.op() == ReplyTape.OP_BULK) {
          value = tape.bytes();
        }
      }
    } else if (outcome.sends()) {
      // the fill of its entry: the first read of a key, then one per TTL
      gateway.onReplyBytes(reply, REPLY.duplicate(), false);
    }
    // a hit completes the command too, and the done hook asks about its reply
    gateway.onCommandDone(reply);
    return value;
  }
}
