package io.hotkey.it;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import redis.clients.jedis.Jedis;

/**
 * Starts real Redis servers for the tests, bound to 127.0.0.1 on free ports:
 *
 * <ol>
 *   <li>Testcontainers ({@code redis:7.2-alpine}) when a Docker engine answers;
 *   <li>otherwise the Linux binary shipped inside the embedded-redis jar (6.2.6), run directly;
 *   <li>otherwise {@code redis-server} on the PATH.
 * </ol>
 *
 * Never skips: when nothing works it fails with what was tried. {@code
 * -Dhotkey.it.redis=docker|embedded|path} forces one way. Clusters, and servers the tests stop and
 * restart ({@link #startPersistent}), always use a local binary (embedded, then PATH; servers other
 * than a Cluster's only the one {@code embedded} or {@code path} names).
 */
public final class RedisServers {
  private static RedisCluster sharedCluster;

  static final String EMBEDDED_RESOURCE = "redis-server-6.2.6-v5-linux-amd64";
  private static Boolean dockerAvailable;

  /**
   * Set once Testcontainers failed although Docker answered (e.g. the image cannot be pulled): not
   * retried.
   */
  private static String dockerFailure;

  private RedisServers() {}

  public static RedisServer start() {
    String forced = System.getProperty("hotkey.it.redis", "").trim().toLowerCase(Locale.ROOT);
    List<String> tried = new ArrayList<>();
    if (forced.isEmpty() || forced.equals("docker")) {
      if (dockerFailure != null) {
        tried.add(dockerFailure);
      } else if (dockerAvailable()) {
        try {
          return DockerRedis.start();
        } catch (Throwable t) {
          dockerFailure = "Testcontainers (Docker answered, but: " + t + ")";
          tried.add(dockerFailure);
        }
      } else {
        tried.add("Testcontainers (no Docker engine answers)");
      }
    }
    if (forced.isEmpty() || forced.equals("embedded") || forced.equals("path")) {
      for (Path binary : binaries(tried, forced)) {
        try {
          RedisServer server = startProcess(binary, List.of(), "redis");
          if (!tried.isEmpty()) {
            System.out.println("[it] Redis from " + binary + " after: " + String.join("; ", tried));
          }
          return server;
        } catch (Throwable t) {
          tried.add(binary + " (" + t + ")");
        }
      }
    }
    throw new IllegalStateException(
        "could not start a Redis server for the tests; tried: " + String.join("; ", tried));
  }

  /**
   * One 3-master Cluster for every test class of this run, stopped when the JVM exits; each user
   * {@link RedisCluster#reset() resets} it before use.
   */
  public static synchronized RedisCluster sharedCluster() {
    if (sharedCluster == null) {
      RedisCluster cluster = startCluster(3);
      Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
      sharedCluster = cluster;
    }
    return sharedCluster;
  }

  /** A Redis Cluster of {@code masters} masters (no replicas), all slots assigned, state ok. */
  public static RedisCluster startCluster(int masters) {
    List<String> tried = new ArrayList<>();
    for (Path binary : binaries(tried, "")) {
      List<RedisServer> nodes = new ArrayList<>();
      try {
        for (int i = 0; i < masters; i++) {
          nodes.add(
              startProcess(
                  binary,
                  List.of(
                      "--cluster-enabled",
                      "yes",
                      "--cluster-config-file",
                      "nodes.conf",
                      "--cluster-node-timeout",
                      "5000"),
                  "cluster-node-" + i));
        }
        return RedisCluster.form(nodes);
      } catch (Throwable t) {
        nodes.forEach(RedisServer::close);
        tried.add(binary + " (" + t + ")");
      }
    }
    throw new IllegalStateException(
        "could not start a Redis Cluster; tried: " + String.join("; ", tried));
  }

  /**
   * Which local binary {@code -Dhotkey.it.redis} asks for ({@code embedded} or {@code path}; both
   * when unset or {@code docker}), e.g. to run {@link #startLocal} servers on the PATH's Redis 7.
   */
  private static String localBinary() {
    String forced = System.getProperty("hotkey.it.redis", "").trim().toLowerCase(Locale.ROOT);
    return forced.equals("docker") ? "" : forced;
  }

  static synchronized boolean dockerAvailable() {
    if (dockerAvailable == null) {
      CompletableFuture<Boolean> f =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
                } catch (Throwable t) {
                  return false;
                }
              });
      try {
        dockerAvailable = f.get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        dockerAvailable = false;
      }
    }
    return dockerAvailable;
  }

  private static List<Path> binaries(List<String> tried, String forced) {
    List<Path> out = new ArrayList<>();
    if (forced.isEmpty() || forced.equals("embedded")) {
      try {
        out.add(extractEmbedded());
      } catch (Throwable t) {
        tried.add("embedded-redis binary (" + t + ")");
      }
    }
    if (forced.isEmpty() || forced.equals("path")) {
      Path onPath = onPath("redis-server");
      if (onPath != null) {
        out.add(onPath);
      } else {
        tried.add("redis-server on PATH (not found)");
      }
    }
    return out;
  }

  static synchronized Path extractEmbedded() throws IOException {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      throw new IOException("no embedded binary for " + os + "/" + arch);
    }
    Path target = ItConfig.workDir().resolve("bin").resolve(EMBEDDED_RESOURCE);
    if (!Files.isExecutable(target)) {
      Files.createDirectories(target.getParent());
      try (InputStream in =
          RedisServers.class.getClassLoader().getResourceAsStream(EMBEDDED_RESOURCE)) {
        if (in == null) {
          throw new IOException(
              "resource " + EMBEDDED_RESOURCE + " not on the test classpath (embedded-redis jar)");
        }
        Path tmp = Files.createTempFile(target.getParent(), "redis", ".tmp");
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
        tmp.toFile().setExecutable(true);
        Files.move(
            tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      }
    }
    return target;
  }

  private static Path onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      Path p = Paths.get(dir, name);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  /** A port that is free, and whose cluster bus port (+10000) is free too. */
  static int freePort() throws IOException {
    for (int attempt = 0; attempt < 200; attempt++) {
      int p = ThreadLocalRandom.current().nextInt(20000, 50000);
      if (free(p) && free(p + 10000)) {
        return p;
      }
    }
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * A local {@code redis-server} (embedded binary, then PATH; never Docker) with {@code appendonly
   * yes} and {@code appendfsync always}, so {@link RedisServer#stop()} and {@link
   * RedisServer#restart()} take it down and bring it back on the same port with every acknowledged
   * write; {@code options} follow.
   */
  public static RedisServer startPersistent(String label, List<String> options) {
    List<String> all =
        new ArrayList<>(List.of("--save", "", "--appendonly", "yes", "--appendfsync", "always"));
    all.addAll(options);
    return startLocal(label, all);
  }

  /**
   * A local {@code redis-server} (embedded binary, then PATH; never Docker) with these further
   * options (e.g. TLS), answering PING on its plain port.
   */
  public static RedisServer startLocal(String label, List<String> options) {
    List<String> tried = new ArrayList<>();
    for (Path binary : binaries(tried, localBinary())) {
      try {
        return startProcess(binary, options, label);
      } catch (Throwable t) {
        tried.add(binary + " (" + t + ")");
      }
    }
    throw new IllegalStateException(
        "could not start Redis (" + label + "); tried: " + String.join("; ", tried));
  }

  /**
   * Debian's Redis 7 at {@code /usr/bin/redis-server}, which the build's setup installs; fails
   * saying what to install when it is missing or another version.
   */
  public static RedisServer startRedis7(String label) {
    Path binary = Paths.get("/usr/bin/redis-server");
    String missing =
        "this test needs Debian's Redis 7 at "
            + binary
            + ": apt-get install redis-server (scripts/install-test-packages.sh does it as root)";
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(missing);
    }
    RedisServer server;
    try {
      server = startProcess(binary, List.of(), label);
    } catch (Exception e) {
      throw new IllegalStateException("could not start " + binary + " (" + label + ")", e);
    }
    try (Jedis j = server.jedis()) {
      if (!j.info("server").contains("redis_version:7.")) {
        server.close();
        throw new IllegalStateException(missing);
      }
    }
    return server;
  }

  /**
   * A local Redis Sentinel (embedded binary, then PATH) that monitors {@code master} as {@code
   * masterName} with quorum 1, holding it down after 2 s without an answer, so that a failover
   * takes a few seconds. It finds the master's replicas itself.
   */
  public static RedisServer startSentinel(String masterName, RedisServer master) {
    List<String> tried = new ArrayList<>();
    for (Path binary : binaries(tried, localBinary())) {
      try {
        return startSentinelProcess(binary, masterName, master);
      } catch (Throwable t) {
        tried.add(binary + " (" + t + ")");
      }
    }
    throw new IllegalStateException(
        "could not start a Redis Sentinel; tried: " + String.join("; ", tried));
  }

  private static RedisServer startSentinelProcess(
      Path binary, String masterName, RedisServer master) throws Exception {
    Exception last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      int port = freePort();
      Path dir = emptyDirectory(ItConfig.workDir().resolve("redis").resolve("sentinel-" + port));
      Path config =
          Files.writeString(
              dir.resolve("sentinel.conf"),
              String.join(
                  "\n",
                  "sentinel monitor "
                      + masterName
                      + " "
                      + master.host()
                      + " "
                      + master.port()
                      + " 1",
                  "sentinel down-after-milliseconds " + masterName + " 2000",
                  "sentinel failover-timeout " + masterName + " 10000",
                  ""));
      LocalRedisProcess process =
          new LocalRedisProcess(
              binary, List.of(config.toString()), port, dir, List.of("--sentinel"));
      try {
        String version = process.start();
        return new RedisServer(
            "127.0.0.1", port, "sentinel (" + binary.getFileName() + ", " + version + ")", process);
      } catch (Exception e) {
        last = e;
      }
    }
    throw last;
  }

  /**
   * Without persistence unless {@code options} ask for it (they follow the defaults, so they
   * override them).
   */
  static RedisServer startProcess(Path binary, List<String> extra, String label) throws Exception {
    List<String> options = new ArrayList<>(List.of("--save", "", "--appendonly", "no"));
    options.addAll(extra);
    Exception last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      int port = freePort();
      Path dir = emptyDirectory(ItConfig.workDir().resolve("redis").resolve(label + "-" + port));
      LocalRedisProcess process = new LocalRedisProcess(binary, port, dir, options);
      try {
        String version = process.start();
        return new RedisServer(
            "127.0.0.1", port, label + " (" + binary.getFileName() + ", " + version + ")", process);
      } catch (Exception e) {
        last = e;
      }
    }
    throw last;
  }

  /**
   * Creates {@code dir}, or empties what an earlier build left there (data files, cluster config,
   * logs).
   */
  private static Path emptyDirectory(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      try (Stream<Path> old = Files.walk(dir)) {
        for (Path p : old.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(dir)).toList()) {
          Files.delete(p);
        }
      }
    }
    return Files.createDirectories(dir);
  }

  /** Testcontainers, loaded only when Docker answers. */
  static final class DockerRedis {
    @SuppressWarnings({"resource", "rawtypes", "unchecked"})
    static RedisServer start() {
      org.testcontainers.containers.GenericContainer c =
          new org.testcontainers.containers.GenericContainer("redis:7.2-alpine")
              .withExposedPorts(6379)
              .withCommand("redis-server", "--save", "", "--appendonly", "no");
      c.start();
      String host = c.getHost();
      if ("localhost".equals(host)) {
        host = "127.0.0.1";
      }
      return new RedisServer(
          host, c.getMappedPort(6379), "redis (Testcontainers redis:7.2-alpine)", c::stop);
    }
  }
}
