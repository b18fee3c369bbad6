package io.hotkey.it.app;

import io.hotkey.it.app.results.JmxResults;
import io.hotkey.it.app.results.ResultName;
import io.hotkey.it.app.results.RunResults;
import io.hotkey.it.app.results.WarmUpResults;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

/**
 * The child side of the protocol between a test and a scenario app (see {@code AgentJvm} in the
 * tests).
 *
 * <ul>
 *   <li>{@code RESULT name=value} on stdout: a fact the test asserts on, named by a {@link
 *       ResultName} both sides share (value is one line, escaped; {@code RESULT name} alone when it
 *       is {@code null});
 *   <li>{@code SYNC name} on stdout, then the child blocks until the test writes {@code GO
 *       [payload]} on its stdin: lets the test snapshot Redis' commandstats or write to Redis at a
 *       known point.
 * </ul>
 *
 * No client classes here: this class loads on every Jedis version.
 */
public final class Child {
  public static final String MBEAN = "io.hotkey:type=HotkeyAgent";

  private static final BlockingQueue<String> STDIN = new LinkedBlockingQueue<>();
  private static final long SYNC_TIMEOUT_SECONDS = 60;

  static {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  STDIN.add(line);
                }
              } catch (Exception ignored) {
                // stdin closed: the test is gone; sync() will time out
              }
              STDIN.add("\u0000EOF");
            },
            "child-stdin");
    t.setDaemon(true);
    t.start();
  }

  private Child() {}

  public static synchronized <T> void result(ResultName<T> name, T value) {
    System.out.println(resultLine(name, value));
    System.out.flush();
  }

  /** The line that reports {@code value} as {@code name}. */
  public static <T> String resultLine(ResultName<T> name, T value) {
    return value == null
        ? "RESULT " + name.name()
        : "RESULT " + name.name() + "=" + escape(name.format(value));
  }

  public static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\') {
        b.append("\\\\");
      } else if (c == '\n') {
        b.append("\\n");
      } else if (c == '\r') {
        b.append("\\r");
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /**
   * Prints {@code SYNC name} and waits for the test's {@code GO [payload]}; returns the payload (""
   * if none).
   */
  public static String sync(String name) {
    synchronized (Child.class) {
      System.out.println("SYNC " + name);
      System.out.flush();
    }
    try {
      String line = STDIN.poll(SYNC_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      if (line == null || line.startsWith("\u0000")) {
        System.err.println("scenario: no GO for SYNC " + name + " (test gone?), exiting");
        System.exit(3);
      }
      if (!line.startsWith("GO")) {
        throw new IllegalStateException("expected GO, got: " + line);
      }
      return line.length() > 3 ? line.substring(3) : "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** How long the first use of JMX waits for the agent's MBean (registered within a second). */
  private static final long MBEAN_WAIT_MILLIS = 3_000;

  private static boolean mbeanServerMade;

  /**
   * The platform MBean server. Its first use makes it, as an application's does: the agent never
   * makes it and registers its MBean within a second of it appearing, so a JVM started with the
   * agent waits for that (up to {@link #MBEAN_WAIT_MILLIS}) before it reads anything.
   */
  private static synchronized MBeanServer mbeanServer() throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    if (mbeanServerMade) {
      return server;
    }
    mbeanServerMade = true;
    if (ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .anyMatch(argument -> argument.startsWith("-javaagent:"))) {
      ObjectName name = new ObjectName(MBEAN);
      long deadline = System.nanoTime() + MBEAN_WAIT_MILLIS * 1_000_000;
      while (!server.isRegistered(name) && System.nanoTime() - deadline < 0) {
        Thread.sleep(20);
      }
    }
    return server;
  }

  /** Reads one attribute of the agent's MBean in-process; null when the MBean is not registered. */
  public static Object jmx(String attribute) {
    try {
      MBeanServer server = mbeanServer();
      ObjectName name = new ObjectName(MBEAN);
      if (!server.isRegistered(name)) {
        return null;
      }
      return server.getAttribute(name, attribute);
    } catch (Exception e) {
      return "ERROR " + e;
    }
  }

  /**
   * The agent's JMX attribute {@code IdempotencyOutcomes}, one {@code outcome=count} a line; empty
   * without the MBean. The idempotency test applications answer it on {@code GET /outcomes}.
   */
  public static String idempotencyOutcomes() {
    StringBuilder text = new StringBuilder();
    jmxMap("IdempotencyOutcomes")
        .forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    return text.toString();
  }

  /** A map attribute of the MBean (an MXBean gives it as {@code TabularData}); empty without it. */
  public static Map<Object, Object> jmxMap(String attribute) {
    Object value = jmx(attribute);
    Map<Object, Object> map = new LinkedHashMap<>();
    if (value instanceof TabularData tabularData) {
      for (Object row : tabularData.values()) {
        CompositeData entry = (CompositeData) row;
        map.put(entry.get("key"), entry.get("value"));
      }
    } else if (value instanceof Map<?, ?> plain) {
      map.putAll(plain);
    }
    return map;
  }

  /** A numeric attribute of the MBean, or -1 without it. */
  public static long counter(String attribute) {
    Object v = jmx(attribute);
    return v instanceof Long l ? l : -1;
  }

  /**
   * Milliseconds from {@code sinceNanos} until every server the agent tracks is in state {@code
   * tracking}, or -1 if that did not happen within {@code timeoutMillis} of it.
   */
  public static long millisUntilTracking(long sinceNanos, long timeoutMillis)
      throws InterruptedException {
    while (System.nanoTime() - sinceNanos < timeoutMillis * 1_000_000) {
      Object servers = jmx("TrackingServers");
      if (servers instanceof String[] array
          && array.length > 0
          && Arrays.stream(array).allMatch(s -> s.split(" ")[1].equals("tracking"))) {
        return (System.nanoTime() - sinceNanos) / 1_000_000;
      }
      Thread.sleep(5);
    }
    return -1;
  }

  public static boolean mbeanRegistered() {
    try {
      return mbeanServer().isRegistered(new ObjectName(MBEAN));
    } catch (Exception e) {
      return false;
    }
  }

  /**
   * A {@code String[]} attribute of the agent's MBean as a list; {@code null} without the MBean.
   */
  public static List<String> jmxTexts(String attribute) {
    Object v = jmx(attribute);
    if (v == null) {
      return null;
    }
    if (v instanceof String[] array) {
      return List.of(array);
    }
    throw new IllegalStateException("MBean attribute " + attribute + ": " + v);
  }

  private static long jmxCounter(String attribute) {
    Object v = jmx(attribute);
    if (v instanceof Long counter) {
      return counter;
    }
    throw new IllegalStateException("MBean attribute " + attribute + ": " + v);
  }

  /** Reports every contract attribute of the MBean as {@code at}'s results. */
  public static void reportJmx(JmxResults at) {
    boolean registered = mbeanRegistered();
    result(at.registered(), registered);
    if (registered) {
      at.counters().forEach((attribute, name) -> result(name, jmxCounter(attribute)));
      result(at.hotKeys(), jmxTexts("HotKeys"));
    }
  }

  /** True when the agent's MBean lists every key in {@code keys} as hot. */
  public static boolean allHot(Collection<String> keys) {
    Object v = jmx("HotKeys");
    if (!(v instanceof String[] array)) {
      return false;
    }
    return Arrays.asList(array).containsAll(keys);
  }

  /** A read whose answer does not matter, as a {@link #warmUp} round. */
  public static Runnable reading(Supplier<?> read) {
    return () -> {
      Object unused = read.get();
    };
  }

  /** How long a warm-up goes on after its keys are hot, waiting for a local answer. */
  private static final long SERVED_AFTER_HOT_MILLIS = 2_000;

  /**
   * Runs {@code round} until the agent reports every key as hot through JMX and answers a round
   * locally (or {@link #SERVED_AFTER_HOT_MILLIS} passed since they were hot), or {@code maxMillis}
   * passed. Without the MBean it simply runs for {@code fallbackMillis} (the test then relies on
   * the log line). Reports {@code results}. Returns whether JMX showed all keys hot.
   */
  public static boolean warmUp(
      WarmUpResults results,
      Collection<String> keys,
      Runnable round,
      long maxMillis,
      long fallbackMillis) {
    long start = System.nanoTime();
    long rounds = 0;
    boolean hot = false;
    long hotAt = 0;
    while (true) {
      round.run();
      rounds++;
      long elapsed = (System.nanoTime() - start) / 1_000_000;
      if (rounds % 25 == 0) {
        if (hotAt == 0 && allHot(keys)) {
          hot = true;
          hotAt = System.nanoTime();
        }
        // hot is not yet served: with tracking, a key is served once its server acknowledged
        // tracking it (or the cache may be off for it, hence the bound)
        if (hot
            && (answeredLocally(round)
                || System.nanoTime() - hotAt > SERVED_AFTER_HOT_MILLIS * 1_000_000)) {
          break;
        }
        if (!mbeanRegistered() && elapsed >= fallbackMillis) {
          break;
        }
      }
      if (elapsed >= maxMillis) {
        break;
      }
    }
    result(results.rounds(), rounds);
    result(results.millis(), (System.nanoTime() - start) / 1_000_000);
    result(results.hotViaJmx(), hot);
    return hot;
  }

  /** Whether one more round got an answer from the agent's cache. */
  private static boolean answeredLocally(Runnable round) {
    Object before = jmx("CacheHits");
    round.run();
    Object after = jmx("CacheHits");
    return before instanceof Long b && after instanceof Long a && a > b;
  }

  /** A scenario's body: it reports what it saw and may throw. */
  public interface Scenario {
    void run() throws Exception;
  }

  /**
   * Runs a scenario app's body, reports {@link RunResults#DONE} (or the {@link RunResults#FAILURE})
   * and ends the JVM with exit code 0 (or 1); {@code reportJmx} reports the agent's figures as
   * {@link RunResults#END_JMX} first.
   */
  public static void runAndExit(Scenario body, boolean reportJmx) {
    try {
      body.run();
      if (reportJmx) {
        reportJmx(RunResults.END_JMX);
      }
      result(RunResults.DONE, true);
    } catch (Throwable t) {
      result(RunResults.FAILURE, t.toString());
      t.printStackTrace();
      System.out.flush();
      System.exit(1);
    }
    System.out.flush();
    System.exit(0);
  }

  public static Map<String, String> parseArgs(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("bad argument " + args[i]);
      }
      m.put(args[i].substring(2), args[i + 1]);
    }
    return m;
  }

  public static int major(String version) {
    return Integer.parseInt(version.split("\\.")[0]);
  }
}
