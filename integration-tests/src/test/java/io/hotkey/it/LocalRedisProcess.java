package io.hotkey.it;

import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;

/**
 * One local {@code redis-server} process bound to 127.0.0.1 on a fixed port with a fixed data
 * directory, so it can be stopped and started again at the same address (with {@code appendonly
 * yes} it comes back with its data). Its output goes to {@code redis.log} in the data directory,
 * appended across restarts.
 */
final class LocalRedisProcess implements AutoCloseable {
  private final List<String> command;
  private final int port;
  private final Path log;
  private Process process;
  private Thread shutdownHook;

  LocalRedisProcess(Path binary, int port, Path dir, List<String> options) {
    this(binary, List.of(), port, dir, options);
  }

  /**
   * @param leading arguments Redis wants right after the binary: a configuration file (a sentinel
   *     needs one it can rewrite)
   */
  LocalRedisProcess(Path binary, List<String> leading, int port, Path dir, List<String> options) {
    this.port = port;
    this.log = dir.resolve("redis.log");
    this.command = new ArrayList<>(List.of(binary.toString()));
    this.command.addAll(leading);
    this.command.addAll(
        List.of(
            "--port",
            Integer.toString(port),
            "--bind",
            "127.0.0.1",
            "--daemonize",
            "no",
            "--dir",
            dir.toString()));
    this.command.addAll(options);
  }

  int port() {
    return port;
  }

  /**
   * Starts the server and waits up to 15 s until it answers PING; returns its {@code
   * redis_version:...} line.
   */
  synchronized String start() throws Exception {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("redis-server on port " + port + " is already running");
    }
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(Redirect.appendTo(log.toFile()))
            .start();
    process = p;
    shutdownHook = new Thread(p::destroyForcibly);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    Exception last = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (System.nanoTime() < deadline && p.isAlive()) {
      try (Jedis j = new Jedis("127.0.0.1", port, 1000)) {
        if ("PONG".equals(j.ping())) {
          return j.info("server")
              .lines()
              .filter(l -> l.startsWith("redis_version:"))
              .findFirst()
              .orElse("?")
              .trim();
        }
      } catch (Exception e) {
        last = e;
      }
      Thread.sleep(50);
    }
    stop();
    String tail = Files.exists(log) ? String.join("\n", Files.readAllLines(log)) : "";
    throw new IllegalStateException(
        "redis-server on port " + port + " did not answer PING; log:\n" + tail, last);
  }

  /**
   * SIGTERM (Redis shuts down cleanly, flushing its append-only file), SIGKILL after 5 s; the data
   * directory stays.
   */
  synchronized void stop() throws InterruptedException {
    Process p = process;
    if (p == null) {
      return;
    }
    process = null;
    p.destroy();
    if (!p.waitFor(5, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException ignored) {
      // the JVM is shutting down
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
