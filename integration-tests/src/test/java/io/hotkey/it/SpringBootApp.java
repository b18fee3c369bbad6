package io.hotkey.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The Spring Boot application of {@code spring-boot-app/} run the way users run theirs: {@code java
 * -javaagent:<agent> -jar boot-app-<client>.jar --server.port=0 --spring.data.redis.port=<port>},
 * i.e. with Boot's own launcher and nested-jar class loader. Unlike {@link AgentJvm} the child is a
 * server: it keeps running while the test talks to it over HTTP, and {@link #snapshot()} gives a
 * {@link ChildRun} of its output so far (for {@code promoted(...)}, {@code describe()} and the
 * like).
 */
final class SpringBootApp implements AutoCloseable {
  /**
   * Boot 3 and 4 say "Tomcat started on port 8080", Boot 2 "Tomcat started on port(s): 8080";
   * WebFlux "Netty started on port 8080".
   */
  private static final Pattern PORT =
      Pattern.compile("(?:Tomcat|Jetty|Undertow|Netty) started on port(?:\\(s\\):?)? (\\d+)");

  private final String name;
  private final List<String> command;
  private final Process process;
  private final long started = System.nanoTime();
  private final List<String> stdout = Collections.synchronizedList(new ArrayList<>());
  private final List<String> stderr = Collections.synchronizedList(new ArrayList<>());
  private final Path outFile;
  private final Path errFile;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();
  private volatile int port = -1;

  private SpringBootApp(String name, List<String> command) {
    this.name = name;
    this.command = command;
    Path logs;
    try {
      logs = Files.createDirectories(ItConfig.workDir().resolve("boot-logs"));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    outFile = logs.resolve(name + ".stdout");
    errFile = logs.resolve(name + ".stderr");
    try {
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.environment().keySet().removeIf(k -> k.startsWith("HOTKEY_") || k.startsWith("SPRING_"));
      process = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + command, e);
    }
    pump(process.getInputStream(), outFile, stdout, name + "-out");
    pump(process.getErrorStream(), errFile, stderr, name + "-err");
  }

  /**
   * The Boot 3 application's fat jar for {@code client}, where the invoker build leaves it ({@code
   * -Dhotkey.it.bootDir} overrides).
   */
  static Path jar(String client) {
    Path dir =
        ItConfig.prop(
            "hotkey.it.bootDir", ItConfig.workDir().getParent().resolve("boot-build/target"));
    return existing(dir.resolve("boot-app-" + client + ".jar"), "spring-boot-app", "boot-build");
  }

  /**
   * The Boot 4 application's fat jar {@code boot-app-<flavour>.jar} ({@code -Dhotkey.it.boot4Dir}
   * overrides where).
   */
  static Path boot4Jar(String flavour) {
    Path dir =
        ItConfig.prop(
            "hotkey.it.boot4Dir", ItConfig.workDir().getParent().resolve("boot4-build/target"));
    return existing(
        dir.resolve("boot-app-" + flavour + ".jar"), "spring-boot-4-app", "boot4-build");
  }

  /**
   * The Boot 2.7 application's fat jar {@code boot-app-<flavour>.jar} ({@code -Dhotkey.it.boot2Dir}
   * overrides where).
   */
  static Path boot2Jar(String flavour) {
    Path dir =
        ItConfig.prop(
            "hotkey.it.boot2Dir", ItConfig.workDir().getParent().resolve("boot2-build/target"));
    return existing(
        dir.resolve("boot-app-" + flavour + ".jar"), "spring-boot-2-app", "boot2-build");
  }

  /**
   * The Spring WebFlux application's fat jar ({@code spring-webflux-app/}; {@code
   * -Dhotkey.it.webfluxDir} overrides where).
   */
  static Path webfluxJar() {
    Path dir =
        ItConfig.prop(
            "hotkey.it.webfluxDir", ItConfig.workDir().getParent().resolve("webflux-build/target"));
    return existing(dir.resolve("webflux-app.jar"), "spring-webflux-app", "webflux-build");
  }

  /**
   * The Spring Cloud Gateway's fat jar ({@code spring-gateway-app/}; {@code -Dhotkey.it.gatewayDir}
   * overrides where).
   */
  static Path gatewayJar() {
    Path dir =
        ItConfig.prop(
            "hotkey.it.gatewayDir", ItConfig.workDir().getParent().resolve("gateway-build/target"));
    return existing(dir.resolve("gateway-app.jar"), "spring-gateway-app", "gateway-build");
  }

  /**
   * The same gateway on spring-cloud 2025.1.4 and Boot 4 ({@code spring-gateway-4-app/}; {@code
   * -Dhotkey.it.gateway4Dir} overrides where).
   */
  static Path gateway4Jar() {
    Path dir =
        ItConfig.prop(
            "hotkey.it.gateway4Dir",
            ItConfig.workDir().getParent().resolve("gateway4-build/target"));
    return existing(dir.resolve("gateway-app.jar"), "spring-gateway-4-app", "gateway4-build");
  }

  private static Path existing(Path jar, String execution, String buildDir) {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "no "
              + jar
              + " (built by the maven-invoker-plugin execution '"
              + execution
              + "' of integration-tests/pom.xml in pre-integration-test; see target/"
              + buildDir
              + "/build.log)");
    }
    return jar;
  }

  /**
   * BOOT-INF/lib/ entries of a fat jar (the application's dependencies as Boot's loader sees them).
   */
  static List<String> libs(Path jar) throws IOException {
    try (JarFile f = new JarFile(jar.toFile())) {
      return f.stream()
          .map(e -> e.getName())
          .filter(n -> n.startsWith("BOOT-INF/lib/") && n.endsWith(".jar"))
          .map(n -> n.substring("BOOT-INF/lib/".length()))
          .sorted()
          .collect(Collectors.toList());
    }
  }

  /**
   * Starts the jar with the agent, the given -D system properties and Boot arguments; does not
   * wait.
   */
  static SpringBootApp start(
      String name, Path jar, Map<String, String> systemProps, String... bootArgs) {
    return start(name, jar, List.of(), systemProps, bootArgs);
  }

  /** The same with more JVM options, after the usual ones. */
  static SpringBootApp start(
      String name,
      Path jar,
      List<String> jvmOptions,
      Map<String, String> systemProps,
      String... bootArgs) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Jdk.JDK17.java().toString());
    // C1 only: Boot's start-up is CPU-bound and the machine has 2 shared cores
    cmd.addAll(List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(jvmOptions);
    Path agent = ItConfig.agentJar();
    if (!Files.isRegularFile(agent)) {
      throw new IllegalStateException("agent jar not found: " + agent);
    }
    cmd.add("-javaagent:" + agent);
    systemProps.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
    cmd.add("-jar");
    cmd.add(jar.toString());
    cmd.add("--server.port=0");
    Collections.addAll(cmd, bootArgs);
    return new SpringBootApp(name, cmd);
  }

  /**
   * Waits for the server's port (Tomcat's, Jetty's or Undertow's) and then for {@code
   * /actuator/health} to answer 200.
   */
  SpringBootApp awaitReady(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (port < 0) {
      if (!process.isAlive()) {
        throw new AssertionError("the application exited with " + process.exitValue() + describe());
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the application did not start within " + timeout + describe());
      }
      synchronized (stdout) {
        for (String line : stdout) {
          Matcher m = PORT.matcher(line);
          if (m.find()) {
            port = Integer.parseInt(m.group(1));
          }
        }
      }
      Thread.sleep(100);
    }
    while (true) {
      try {
        if (get("/actuator/health").statusCode() == 200) {
          System.out.println(
              "[it] "
                  + name
                  + " ready on port "
                  + port
                  + " after "
                  + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
                  + "ms");
          return this;
        }
      } catch (IOException e) {
        // not yet
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "/actuator/health did not answer 200 within " + timeout + describe());
      }
      Thread.sleep(200);
    }
  }

  /** Waits until an agent line (from "[hotkey] " on) matches {@code regex}; false on timeout. */
  boolean awaitAgentLine(String regex, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (snapshot().stderrMatches(regex)) {
        return true;
      }
      Thread.sleep(100);
    }
    return false;
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(uri(path)).GET());
  }

  HttpResponse<String> put(String path, String body) throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "text/plain")
            .PUT(HttpRequest.BodyPublishers.ofString(body)));
  }

  HttpResponse<String> delete(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(uri(path)).DELETE());
  }

  /** A GET that must answer 200; returns the body. */
  String body(String path) throws IOException, InterruptedException {
    HttpResponse<String> r = get(path);
    if (r.statusCode() != 200) {
      throw new AssertionError("GET " + path + " answered " + r.statusCode() + ": " + r.body());
    }
    return r.body();
  }

  private HttpResponse<String> send(HttpRequest.Builder request)
      throws IOException, InterruptedException {
    return http.send(
        request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create(base() + path);
  }

  /** {@code http://127.0.0.1:<port>} once {@link #awaitReady} returned. */
  String base() {
    return "http://127.0.0.1:" + port;
  }

  /** The output so far, as a {@link ChildRun} (exit code Integer.MIN_VALUE while running). */
  ChildRun snapshot() {
    int exit = process.isAlive() ? Integer.MIN_VALUE : process.exitValue();
    List<String> out;
    List<String> err;
    synchronized (stdout) {
      out = new ArrayList<>(stdout);
    }
    synchronized (stderr) {
      err = new ArrayList<>(stderr);
    }
    return new ChildRun(
        name,
        String.join(" ", command),
        exit,
        false,
        Duration.ofNanos(System.nanoTime() - started),
        out,
        err,
        List.of(),
        outFile,
        errFile,
        null);
  }

  /** For assertion messages. */
  String describe() {
    return snapshot().describe();
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    System.out.println(
        "[it] "
            + name
            + " stopped after "
            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
            + "ms, logs "
            + errFile);
  }

  private static void pump(InputStream in, Path file, List<String> sink, String threadName) {
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
                  f.flush();
                }
              } catch (IOException ignored) {
                // process gone
              }
            },
            threadName);
    t.setDaemon(true);
    t.start();
  }
}
