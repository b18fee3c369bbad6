package io.hotkey.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Launches a child JVM: {@code java [-javaagent:<jar>[=args]] [-Dhotkey...] -cp <cp> <main> <args>}
 * on a chosen JDK, captures stdout/stderr (in memory and under target/it-work/logs/), answers its
 * {@code SYNC} lines, waits with a timeout (killing the process tree on expiry) and returns exit
 * code + output.
 */
public final class AgentJvm {
  private static final AtomicInteger SEQ = new AtomicInteger();
  private static final String EOF = "\u0000EOF";
  private static final Path LOGS = cleanLogs();

  private Jdk jdk = Jdk.JDK17;
  private boolean agent = true;
  private String agentArgs;
  private Path agentJar = ItConfig.agentJar();
  private final Map<String, String> props = new LinkedHashMap<>();
  private final Map<String, String> env = new LinkedHashMap<>();

  /**
   * C1 alone and the serial collector: a child lives seconds and these tests check behaviour, not
   * speed, so C2's compile threads would only take CPU from the other processes of a 2-core run.
   */
  private final List<String> jvmOptions =
      new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));

  private final List<String> afterAgentOptions = new ArrayList<>();
  private String classpath;
  private String main;
  private final List<String> args = new ArrayList<>();
  private String name = "child";
  private Duration timeout = Duration.ofSeconds(90);

  private AgentJvm() {}

  /** The Jedis scenario app on a given Jedis version's classpath, agent attached, JDK 17. */
  public static AgentJvm jedisApp(String jedisVersion) {
    AgentJvm j = new AgentJvm();
    j.classpath = Clients.jedisClasspath(jedisVersion);
    j.main = "io.hotkey.it.app.JedisScenarioApp";
    j.args.addAll(List.of("--jedis", jedisVersion));
    j.name = "jedis-" + jedisVersion;
    return j;
  }

  /**
   * The Lettuce scenario app on a given Lettuce version's classpath (netty, reactor), agent
   * attached, JDK 17.
   */
  public static AgentJvm lettuceApp(String lettuceVersion) {
    AgentJvm j = new AgentJvm();
    j.classpath = Clients.lettuceClasspath(lettuceVersion);
    j.main = "io.hotkey.it.app.LettuceScenarioApp";
    j.name = "lettuce-" + lettuceVersion;
    return j;
  }

  /**
   * Any main class on {@code classpath}, agent attached, JDK 17 (e.g. a server started with {@link
   * #start()}).
   */
  public static AgentJvm app(String name, String classpath, String main) {
    AgentJvm j = new AgentJvm();
    j.classpath = classpath;
    j.main = main;
    j.name = name;
    return j;
  }

  public static AgentJvm clusterApp(String jedisVersion) {
    AgentJvm j = new AgentJvm();
    j.classpath = Clients.jedisClasspath(jedisVersion);
    j.main = "io.hotkey.it.app.ClusterScenarioApp";
    j.name = "cluster-jedis-" + jedisVersion;
    return j;
  }

  public AgentJvm jdk(Jdk jdk) {
    this.jdk = jdk;
    return this;
  }

  public AgentJvm withoutAgent() {
    this.agent = false;
    return this;
  }

  /** Another build of the agent than the one under test (e.g. one without its bundled weaves). */
  public AgentJvm agentJar(Path jar) {
    this.agentJar = jar;
    return this;
  }

  public AgentJvm agentArgs(String args) {
    this.agent = true;
    this.agentArgs = args;
    return this;
  }

  public AgentJvm prop(String key, String value) {
    props.put(key, value);
    return this;
  }

  /** An environment variable for the child (e.g. HOTKEY_CACHE_ENABLED). */
  public AgentJvm env(String key, String value) {
    env.put(key, value);
    return this;
  }

  /**
   * Threshold 200/s over a 1s window, so a few hundred reads make a key hot; no key is write-hot
   * (the scenarios write their hot keys hundreds of times a second and check they are served).
   */
  public AgentJvm hotkeyTestDefaults() {
    return prop("hotkey.detect.threshold", "200")
        .prop("hotkey.detect.window", "1s")
        .prop("hotkey.detect.write-threshold", "1000000");
  }

  /**
   * C2 as well, for a child whose checks bound a latency (staleness, lateness after a TTL, a
   * serve-stale deadline): its hot loops and TLS then run at the speed an application's would.
   */
  public AgentJvm fullJit() {
    jvmOptions.remove("-XX:TieredStopAtLevel=1");
    return this;
  }

  public AgentJvm jvmOption(String option) {
    jvmOptions.add(option);
    return this;
  }

  /** An option placed after this agent's {@code -javaagent} (another agent loaded after ours). */
  public AgentJvm jvmOptionAfterAgent(String option) {
    afterAgentOptions.add(option);
    return this;
  }

  public AgentJvm args(String... more) {
    Collections.addAll(args, more);
    return this;
  }

  public AgentJvm name(String name) {
    this.name = name;
    return this;
  }

  public AgentJvm timeout(Duration timeout) {
    this.timeout = timeout;
    return this;
  }

  public List<String> command() {
    List<String> cmd = new ArrayList<>();
    cmd.add(jdk.java().toString());
    cmd.addAll(jvmOptions);
    if (agent) {
      Path jar = agentJar;
      if (!Files.isRegularFile(jar)) {
        throw new IllegalStateException(
            "agent jar not found: "
                + jar
                + " (build it first: mvn -pl agent -am -DskipTests install, or run mvn verify from the root)");
      }
      cmd.add("-javaagent:" + jar + (agentArgs == null ? "" : "=" + agentArgs));
    }
    cmd.addAll(afterAgentOptions);
    props.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add(main);
    cmd.addAll(args);
    return cmd;
  }

  /** A started child process whose streams are being copied to its log files and to memory. */
  static final class Launched {
    final String label;
    final String command;
    final long startNanos = System.nanoTime();
    final Process process;
    final List<String> stdout = Collections.synchronizedList(new ArrayList<>());
    final List<String> stderr = Collections.synchronizedList(new ArrayList<>());

    /** Every stdout line as it arrives, then {@link #EOF}. */
    final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    final Path outFile;
    final Path errFile;
    final Thread outPump;
    final Thread errPump;

    Launched(AgentJvm jvm) {
      List<String> cmd = jvm.command();
      this.label = jvm.name + " on " + jvm.jdk;
      this.command = String.join(" ", cmd);
      String base =
          String.format(
                  "%03d-%s-%s",
                  SEQ.incrementAndGet(), jvm.name, jvm.jdk.name().toLowerCase(Locale.ROOT))
              .replaceAll("[^A-Za-z0-9._-]", "_");
      outFile = LOGS.resolve(base + ".stdout");
      errFile = LOGS.resolve(base + ".stderr");
      try {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("HOTKEY_"));
        pb.environment().putAll(jvm.env);
        process = pb.start();
      } catch (IOException e) {
        throw new IllegalStateException("cannot start " + cmd, e);
      }
      outPump = pump(process.getInputStream(), outFile, stdout, lines, base + "-out");
      errPump = pump(process.getErrorStream(), errFile, stderr, null, base + "-err");
    }

    static boolean isEnd(String line) {
      return EOF.equals(line);
    }

    /** Waits for the process (it has exited or been killed) and its output, and sums it up. */
    ChildRun finish(boolean timedOut, List<String> syncs, Throwable handlerFailure) {
      try {
        process.waitFor(10, TimeUnit.SECONDS);
        outPump.join(5000);
        errPump.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      int exit = process.isAlive() ? Integer.MIN_VALUE : process.exitValue();
      Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
      return new ChildRun(
          label,
          command,
          exit,
          timedOut,
          took,
          new ArrayList<>(stdout),
          new ArrayList<>(stderr),
          syncs,
          outFile,
          errFile,
          handlerFailure);
    }
  }

  /**
   * Starts a child that keeps running (a server) and waits until it prints {@code PORT n}; stop it
   * with {@link RunningJvm#close()} or kill it with {@link RunningJvm#kill()}.
   */
  public RunningJvm start() {
    return RunningJvm.awaitPort(new Launched(this), timeout);
  }

  /**
   * Starts the child and answers every {@code SYNC name} line with {@code GO <handler's payload>}.
   */
  public ChildRun run(SyncHandler handler) {
    Launched launched = new Launched(this);
    Process p = launched.process;
    long start = launched.startNanos;
    BlockingQueue<String> lines = launched.lines;
    List<String> syncs = new ArrayList<>();
    Throwable handlerFailure = null;
    boolean timedOut = false;
    long deadline = start + timeout.toNanos();
    try (Writer stdin = new PrintWriter(p.getOutputStream(), true, StandardCharsets.UTF_8)) {
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          timedOut = true;
          break;
        }
        String line = lines.poll(left, TimeUnit.NANOSECONDS);
        if (line == null) {
          timedOut = true;
          break;
        }
        if (line.equals(EOF)) {
          break;
        }
        if (line.startsWith("SYNC ")) {
          String sync = line.substring(5).trim();
          syncs.add(sync);
          String payload = "";
          if (handlerFailure == null) {
            try {
              payload = handler == null ? "" : handler.onSync(sync);
            } catch (Throwable t) {
              handlerFailure = t;
            }
          }
          stdin.write("GO" + (payload == null || payload.isEmpty() ? "" : " " + payload) + "\n");
          stdin.flush();
        }
      }
      if (!timedOut) {
        long left = Math.max(1, deadline - System.nanoTime());
        timedOut = !p.waitFor(left, TimeUnit.NANOSECONDS);
      }
    } catch (IOException e) {
      // child closed stdin (it exited); fall through to waitFor
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (timedOut) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    ChildRun run = launched.finish(timedOut, syncs, handlerFailure);
    System.out.println("[it] " + run.summary());
    return run;
  }

  /** target/it-work/logs/, emptied once per test JVM so that it only holds this run's children. */
  private static Path cleanLogs() {
    try {
      Path logs = Files.createDirectories(ItConfig.workDir().resolve("logs"));
      try (java.util.stream.Stream<Path> old = Files.list(logs)) {
        old.filter(Files::isRegularFile).forEach(f -> f.toFile().delete());
      }
      return logs;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public ChildRun run() {
    return run(null);
  }

  private static Thread pump(
      InputStream in, Path file, List<String> sink, BlockingQueue<String> queue, String name) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                      new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
                  OutputStream f = Files.newOutputStream(file)) {
                String line;
                while ((line = r.readLine()) != null) {
                  sink.add(line);
                  f.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                  if (queue != null) {
                    queue.add(line);
                  }
                }
              } catch (IOException ignored) {
                // process gone
              } finally {
                if (queue != null) {
                  queue.add(EOF);
                }
              }
            },
            name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Answers a child's {@code SYNC name}; the returned payload is sent as {@code GO payload}. */
  @FunctionalInterface
  public interface SyncHandler {
    String onSync(String name) throws Exception;
  }
}
