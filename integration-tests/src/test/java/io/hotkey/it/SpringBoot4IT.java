package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The application of {@link SpringBootIT} and {@link SpringBootIdempotencyIT} built on Spring Boot
 * 4.0 (spring-boot-4-app/: the same sources, Boot's managed Jedis 7.0 and Lettuce 6.8, Spring
 * Framework 7), run with {@code java -javaagent:hotkey-agent.jar -jar}: Jedis on Jetty 12.1 (ee11)
 * and Lettuce on Tomcat 11. One start each passes both classes' checks, reads first: hot {@code
 * RedisTemplate} and {@code @Cacheable} reads are served locally and stay right, the meters show in
 * {@code /actuator/prometheus}, and the controller behind {@code hotkey.idempotency.routes} runs
 * once per key. The Lettuce application runs with Boot's Lettuce observation (Lettuce's {@code
 * MicrometerTracing}, its commands timed as {@code lettuce} in {@code /actuator/prometheus}): the
 * reads the agent answers do not reach Redis there either. One application at a time, which leaves
 * a core idle most of the time: beside the other classes.
 */
@SideLane
class SpringBoot4IT extends RedisTestBase {

  @ParameterizedTest(name = "spring boot 4: {0} {1} on {2} {3}")
  @CsvSource({"jedis, 7.0., Jetty, 12.1.", "lettuce, 6.8., Tomcat, 11."})
  void hotReadsAreServedMeteredAndRoutesIdempotent(
      String client, String clientLine, String server, String serverLine) throws Exception {
    try (SpringBootApp app = start(client, clientLine, server, serverLine)) {
      SpringBootIT.proveHotKeysServedAndMetered(app, redis, client);
      if (client.equals("lettuce")) {
        String prometheus = app.body("/actuator/prometheus");
        assertTrue(
            prometheus.lines().anyMatch(l -> l.startsWith("lettuce_seconds_count{")),
            () -> "Boot's Lettuce observation is off: no lettuce timer" + app.describe());
      }
      SpringBootIdempotencyIT.proveIdempotency(app, label(client, server));
    }
  }

  /**
   * Starts {@code boot-app-<client>-<server>.jar}, after checking it holds that client's and that
   * server's release line and not the other client or server, and waits until that server serves
   * it.
   */
  private SpringBootApp start(String client, String clientLine, String server, String serverLine)
      throws Exception {
    Path jar = SpringBootApp.boot4Jar(client + "-" + server.toLowerCase(Locale.ROOT));
    SpringBootIT.assertHoldsOnlyItsClient(jar, client);
    assertHolds(jar, (client.equals("lettuce") ? "lettuce-core-" : "jedis-") + clientLine);
    assertHolds(
        jar, (server.equals("Tomcat") ? "tomcat-embed-core-" : "jetty-server-") + serverLine);
    String otherServer = server.equals("Tomcat") ? "jetty-server-" : "tomcat-embed-core-";
    List<String> libs = SpringBootApp.libs(jar);
    assertFalse(
        libs.stream().anyMatch(l -> l.startsWith(otherServer)),
        () -> jar + " must not hold " + otherServer + libs);

    Map<String, String> properties = new TreeMap<>(SpringBootIT.PROPERTIES);
    properties.putAll(SpringBootIdempotencyIT.properties());
    List<String> args =
        new ArrayList<>(
            List.of(
                "--spring.data.redis.host=" + redis.host(),
                "--spring.data.redis.port=" + redis.port()));
    if (client.equals("jedis")) {
      args.add("--spring.profiles.active=jedis");
    }
    SpringBootApp app =
        SpringBootApp.start(label(client, server), jar, properties, args.toArray(String[]::new));
    try {
      app.awaitReady(Duration.ofSeconds(150));
      assertTrue(
          app.snapshot().stdout().stream().anyMatch(l -> l.contains(server + " started on port")),
          () -> server + " did not serve the application" + app.describe());
      return app;
    } catch (Exception | Error e) {
      app.close();
      throw e;
    }
  }

  static void assertHolds(Path jar, String libPrefix) throws IOException {
    List<String> libs = SpringBootApp.libs(jar);
    assertTrue(
        libs.stream().anyMatch(l -> l.startsWith(libPrefix)),
        () -> jar + " lacks " + libPrefix + ": " + libs);
  }

  private static String label(String client, String server) {
    return "boot4-" + client + "-" + server.toLowerCase(Locale.ROOT);
  }
}
