package io.hotkey.agent.testing;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real redis-server for tests, started on a free port bound to 127.0.0.1, with an append-only
 * file fsynced on every write (so a restart keeps every record, as a production Redis with
 * persistence would): by default Redis 6.2, the Linux binary inside the embedded-redis test
 * dependency; or Debian's Redis 7 ({@link RedisBuild#DEBIAN_7}). Never skips: it fails with what it
 * tried.
 */
public final class RedisProcess implements AutoCloseable {
  private final Path binary;
  private final List<String> extraArguments;
  private final Path dir;
  private final int port;
  private Process process;

  private RedisProcess(Path binary, List<String> extraArguments, Path dir, int port) {
    this.binary = binary;
    this.extraArguments = extraArguments;
    this.dir = dir;
    this.port = port;
  }

  /** Redis 6.2 from the embedded-redis jar. */
  public static RedisProcess start() throws IOException, InterruptedException {
    return start(RedisBuild.EMBEDDED_6_2);
  }

  /**
   * Starts a server on a free loopback port and waits until it answers.
   *
   * @param extraArguments further {@code redis-server} options, e.g. {@code "--requirepass", "pw"}
   */
  public static RedisProcess start(RedisBuild build, String... extraArguments)
      throws IOException, InterruptedException {
    RedisProcess redis =
        new RedisProcess(
            build.binary(),
            List.of(extraArguments),
            Files.createTempDirectory("hotkey-redis"),
            freePort());
    redis.launch();
    return redis;
  }

  /**
   * A server that speaks only TLS on its port, with this certificate and key, not asking clients
   * for certificates of their own.
   */
  public static RedisProcess startTls(RedisBuild build, TestCertificates certificates)
      throws IOException, InterruptedException {
    int port = freePort();
    RedisProcess redis =
        new RedisProcess(
            build.binary(),
            List.of(
                "--port",
                "0",
                "--tls-port",
                Integer.toString(port),
                "--tls-cert-file",
                certificates.serverCertificate().toString(),
                "--tls-key-file",
                certificates.serverKey().toString(),
                "--tls-ca-cert-file",
                certificates.caCertificate().toString(),
                "--tls-auth-clients",
                "no"),
            Files.createTempDirectory("hotkey-redis"),
            port);
    redis.launch();
    return redis;
  }

  public int port() {
    return port;
  }

  public long pid() {
    return process.pid();
  }

  private void launch() throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                binary.toString(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
                dir.toString(),
                "--daemonize",
                "no",
                "--protected-mode",
                "no"));
    command.addAll(extraArguments);
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("redis.log").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException(
            "redis-server exited with "
                + process.exitValue()
                + ": "
                + Files.readString(dir.resolve("redis.log")));
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        return;
      } catch (IOException notYet) {
        Thread.sleep(20);
      }
    }
    throw new IOException(
        "redis-server did not listen on 127.0.0.1:"
            + port
            + " within 10s: "
            + Files.readString(dir.resolve("redis.log")));
  }

  /**
   * Freezes the server (SIGSTOP): connections stay open but nothing answers, like a hung or
   * partitioned Redis.
   */
  public void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  public void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  /**
   * Kills the server (SIGKILL, no shutdown save) and starts it again on the same port and data
   * directory.
   */
  public void crashAndRestart() throws IOException, InterruptedException {
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    launch();
  }

  /** Kills the server; {@link #restart()} brings it back. */
  public void kill() throws InterruptedException {
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
  }

  public void restart() throws IOException, InterruptedException {
    launch();
  }

  private void signal(String name) throws IOException, InterruptedException {
    Process kill =
        new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + name + " failed");
    }
  }

  /** A free port on 127.0.0.1, e.g. for a cluster node's bus ({@code --cluster-port}). */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null) {
      try {
        signal("CONT");
      } catch (IOException | InterruptedException ignored) {
        // not paused or already gone
      }
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    File[] files = dir.toFile().listFiles();
    if (files != null) {
      for (File file : files) {
        deleteRecursively(file);
      }
    }
    dir.toFile().delete();
  }

  private static void deleteRecursively(File file) {
    File[] children = file.listFiles();
    if (children != null) {
      for (File child : children) {
        deleteRecursively(child);
      }
    }
    file.delete();
  }
}
