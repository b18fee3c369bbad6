package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.StalenessResults;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The agent's tracking connection logs in to a server as the application's Lettuce client does,
 * with nothing but the client's own configuration (no {@code hotkey.redis.uri}): a password, an ACL
 * user, TLS with the client's {@code SslOptions} trust and verify mode, a Redis Cluster's masters;
 * on Lettuce 6.1 (login kept in {@code ConnectionState}), 6.8 and 7.7 (a credentials provider).
 * Lettuce sends its login in its connection handshake, which no command hook sees. {@code
 * StalenessApp} reads a hot key through Lettuce while a raw connection SETs it every 5 ms: the
 * application is tracking and sees every write in milliseconds, with a 30 s TTL. A password changed
 * on the server after the client logged in falls back to the TTL with one log line, and the
 * application never notices. No secret is ever printed. Every case has servers of its own. The
 * class runs beside the others ({@link SideLane}).
 */
@SideLane
class LettuceLoginIT {
  private static final String PASSWORD = "app-secret-5f1c";
  private static final String ROTATED = "rotated-secret-9a7e";

  /**
   * Far below what the 30 s TTL alone would give (reads seconds stale by the end of a run), so only
   * invalidation meets it; looser than {@link StalenessIT}'s figures, which hold for the same
   * tracking connection once it is logged in, and which a loaded machine pushes past now and then
   * in a class of ten runs.
   */
  private static final long FRESH_P99_US = 100_000;

  private static final long FRESH_MAX_US = 1_000_000;

  /**
   * {@code StalenessApp} reading {@code key} through Lettuce {@code version} connected with {@code
   * uri}, its writer at {@code writeTo} logged in as {@code login} ({@code user:password}; null:
   * none).
   */
  private static AgentJvm app(
      String version, RedisServer writeTo, String key, String uri, String login) {
    AgentJvm app =
        StalenessIT.app(
                "lettuce-login-" + version,
                Clients.lettuceClasspath(version),
                writeTo,
                key,
                "--uri",
                uri)
            .prop("hotkey.cache.ttl", StalenessIT.LONG_TTL);
    return login == null ? app : app.args("--auth", login);
  }

  /** Served, correct, tracking {@code server}, fresh by invalidation; no secret printed. */
  private static void assertTracksAsTheClient(ChildRun c, String server, String heading) {
    List<Executable> checks = StalenessIT.servedAndCorrect(c);
    checks.add(StalenessIT.bounded(c, FRESH_P99_US, FRESH_MAX_US));
    checks.add(tracked(c, server, "tracking"));
    checks.add(noSecretPrinted(c));
    Check.all(c, heading, checks.stream());
  }

  /** The agent's TrackingServers list {@code server} in {@code state}. */
  private static Executable tracked(ChildRun c, String server, String state) {
    String want = server + " " + state;
    return () ->
        assertTrue(
            c.result(StalenessResults.TRACKING_SERVERS).stream()
                .anyMatch(line -> line.contains(want)),
            () -> "want " + want + "; tracked: " + c.result(StalenessResults.TRACKING_SERVERS));
  }

  private static Executable noSecretPrinted(ChildRun c) {
    return () ->
        assertFalse(
            Stream.concat(c.stdout().stream(), c.stderr().stream())
                .anyMatch(line -> line.contains(PASSWORD) || line.contains(ROTATED)),
            "a password was printed");
  }

  /** From now on the server wants {@link #PASSWORD} for its default user. */
  private static void requirePassword(RedisServer server) {
    try (Jedis admin = server.jedis()) {
      admin.configSet("requirepass", PASSWORD);
    }
  }

  @ParameterizedTest(name = "lettuce {0}")
  @ValueSource(strings = {Clients.LETTUCE_6_1, Clients.LETTUCE_6, Clients.LETTUCE_7})
  void aPasswordProtectedServer(String version) {
    try (RedisServer redis = RedisServers.startLocal("requirepass", List.of())) {
      requirePassword(redis);
      ChildRun c =
          StalenessIT.run(
              app(
                  version,
                  redis,
                  "login:requirepass",
                  "redis://" + PASSWORD + "@" + redis.address(),
                  ":" + PASSWORD));
      assertTracksAsTheClient(c, redis.address(), "tracking with the client's password");
      assertEquals(
          List.of("default"),
          c.result(StalenessResults.AGENT_USERS),
          "the tracking connection's user");
    }
  }

  @ParameterizedTest(name = "lettuce {0}")
  @ValueSource(strings = {Clients.LETTUCE_6_1, Clients.LETTUCE_7})
  void anAclUser(String version) {
    try (RedisServer redis = aclServer()) {
      ChildRun c =
          StalenessIT.run(
              app(
                  version,
                  redis,
                  "login:acl",
                  "redis://app:" + PASSWORD + "@" + redis.address(),
                  "app:" + PASSWORD));
      assertTracksAsTheClient(c, redis.address(), "tracking as the client's ACL user");
      assertEquals(
          List.of("app"), c.result(StalenessResults.AGENT_USERS), "the tracking connection's user");
    }
  }

  /**
   * A user {@code app} with every right, and a default user that may not use {@code CLIENT}: a
   * connection that does not log in as {@code app} cannot track.
   */
  private static RedisServer aclServer() {
    RedisServer redis = RedisServers.startLocal("acl", List.of());
    try (Jedis admin = redis.jedis()) {
      admin.aclSetUser("app", "on", ">" + PASSWORD, "~*", "&*", "+@all");
      admin.aclSetUser("default", "-client");
    }
    return redis;
  }

  static Stream<Arguments> tlsClients() {
    return Stream.of(
        // the certificate names localhost only: with CA and NONE the name is not checked
        Arguments.of(Clients.LETTUCE_6, "localhost", "FULL", true),
        Arguments.of(Clients.LETTUCE_7, "127.0.0.1", "CA", true),
        Arguments.of(Clients.LETTUCE_7, "127.0.0.1", "NONE", false));
  }

  @ParameterizedTest(name = "lettuce {0} rediss://{1} verifyPeer={2} trusting SslOptions: {3}")
  @MethodSource("tlsClients")
  void tlsAsTheClientConfiguresIt(
      String version, String host, String verifyMode, boolean trustsTheCertificate)
      throws Exception {
    try (TlsRedis tls = TlsRedis.start("tls-" + verifyMode.toLowerCase(Locale.ROOT))) {
      AgentJvm app =
          app(
              version,
              tls.server,
              "login:tls",
              "rediss://" + host + ":" + tls.tlsPort + "?verifyPeer=" + verifyMode,
              null);
      if (trustsTheCertificate) {
        app.args("--truststore", tls.certificate().toString());
      }
      ChildRun c = StalenessIT.run(app);
      assertTracksAsTheClient(c, host + ":" + tls.tlsPort, "tracking over the client's TLS");
    }
  }

  @Test
  void aClusterIsTrackedOnTheMasterOfTheHotKey() {
    String version = Clients.LETTUCE_6;
    try (RedisCluster cluster = RedisServers.startCluster(3)) {
      String key = "login:cluster";
      RedisServer owner = masterOf(cluster, key);
      cluster.nodes().forEach(LettuceLoginIT::requirePassword);
      ChildRun c =
          StalenessIT.run(
              app(
                      version,
                      owner,
                      key,
                      "redis://" + PASSWORD + "@" + cluster.nodes().get(0).address(),
                      ":" + PASSWORD)
                  .args("--cluster", "true"));
      assertTracksAsTheClient(c, owner.address(), "tracking a cluster's master");
    }
  }

  /** The master of {@code key}'s slot, as {@code RedisCluster.form} assigned the slots. */
  private static RedisServer masterOf(RedisCluster cluster, String key) {
    int slot = JedisClusterCRC16.getSlot(key);
    int n = cluster.nodes().size();
    int i = 0;
    while (slot >= (i + 1) * 16384 / n) {
      i++;
    }
    return cluster.nodes().get(i);
  }

  private static final long SHORT_TTL_MS = 300;

  /** How long a key that is hot but must not be served is read before the checks. */
  private static final String NO_SERVING_SECONDS = "5";

  @Test
  void aPasswordChangedOnTheServerFallsBackToTheTtlWithOneLine() {
    try (RedisServer redis = aclServer()) {
      ChildRun c =
          StalenessIT.run(
              app(
                      Clients.LETTUCE_7,
                      redis,
                      "login:rotated",
                      "redis://app:" + PASSWORD + "@" + redis.address(),
                      "app:" + PASSWORD)
                  .args(
                      "--rotate-password", "app:" + ROTATED, "--warmup-seconds", NO_SERVING_SECONDS)
                  .prop("hotkey.cache.ttl", SHORT_TTL_MS + "ms"));
      assertFallsBackToTheTtl(c, redis, "a rotated password falls back to the TTL");
    }
  }

  @Test
  void hotkeyRedisUriStillOverridesWhatIsDiscovered() {
    try (RedisServer redis = RedisServers.startLocal("override", List.of())) {
      requirePassword(redis);
      ChildRun c =
          StalenessIT.run(
              app(
                      Clients.LETTUCE_7,
                      redis,
                      "login:override",
                      "redis://" + PASSWORD + "@" + redis.address(),
                      ":" + PASSWORD)
                  .args("--warmup-seconds", NO_SERVING_SECONDS)
                  .prop("hotkey.redis.uri", "redis://:" + ROTATED + "@" + redis.address())
                  .prop("hotkey.cache.ttl", SHORT_TTL_MS + "ms"));
      assertFallsBackToTheTtl(c, redis, "hotkey.redis.uri's login, not the client's");
    }
  }

  /**
   * The application read correct values while tracking {@code server} fell back to the TTL with one
   * line naming the refused login; no secret printed. The agent's own connection cannot ask that
   * server the hot key's Redis TTL either, so no entry is served (an entry is served only once its
   * key's TTL is known), with one line saying so.
   */
  private static void assertFallsBackToTheTtl(ChildRun c, RedisServer server, String heading) {
    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertEquals(0, c.exitCode(), "exit code"));
    checks.add(
        () -> assertEquals(0, c.result(StalenessResults.WRONG_VALUES), "values never written"));
    checks.add(
        () -> assertEquals(0, c.result(StalenessResults.HITS), "served without a known TTL"));
    checks.add(
        () ->
            assertEquals(
                1,
                c.stderr().stream().filter(l -> l.contains("for hot keys' TTLs")).count(),
                "one line for the TTLs that cannot be asked"));
    checks.add(tracked(c, server.address(), "ttl_fallback"));
    checks.add(
        () -> {
          List<String> lines =
              c.stderr().stream().filter(l -> l.contains("tracking unavailable on")).toList();
          assertEquals(1, lines.size(), () -> "tracking unavailable lines: " + lines);
          assertTrue(
              lines.get(0).contains("WRONGPASS")
                  && lines.get(0).contains("refused the agent's login"),
              lines.get(0));
        });
    checks.add(noSecretPrinted(c));
    Check.all(c, heading, checks.stream());
  }
}
