package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * 2.7 (spring-boot-2-app/: the same sources on {@code javax.servlet}, Boot's managed Jedis 3.8 and
 * Lettuce 6.1, Spring Framework 5.3, Micrometer 1.9), run with {@code java
 * -javaagent:hotkey-agent.jar -jar}: Lettuce on Tomcat 9 and Jedis on Undertow 2.2. One start each
 * passes both classes' checks, reads first: hot {@code RedisTemplate} and {@code @Cacheable} reads
 * are served locally (Redis' commandstats stop growing) and stay right across writes, the meters
 * show in {@code /actuator/prometheus}, and the controller behind {@code hotkey.idempotency.routes}
 * runs once per key. One application at a time, which leaves a core idle most of the time: beside
 * the other classes.
 */
@SideLane
class SpringBoot27IT extends RedisTestBase {

  @ParameterizedTest(name = "spring boot 2.7: {0} {1} on {2} {3}")
  @CsvSource({"lettuce, 6.1., Tomcat, 9.0.", "jedis, 3.8., Undertow, 2.2."})
  void hotReadsAreServedMeteredAndRoutesIdempotent(
      String client, String clientLine, String server, String serverLine) throws Exception {
    try (SpringBootApp app = start(client, clientLine, server, serverLine)) {
      SpringBootIT.proveHotKeysServedAndMetered(app, redis, client);
      SpringBootIdempotencyIT.proveIdempotency(app, "boot2.7-" + client + "-" + server);
    }
  }

  /**
   * Starts {@code boot-app-<client>-<server>.jar}, after checking it holds that client's and that
   * server's release line and not the other client or server, and waits until that server serves
   * it.
   */
  private SpringBootApp start(String client, String clientLine, String server, String serverLine)
      throws Exception {
    Path jar = SpringBootApp.boot2Jar(client + "-" + server.toLowerCase(Locale.ROOT));
    SpringBootIT.assertHoldsOnlyItsClient(jar, client);
    SpringBoot4IT.assertHolds(
        jar, (client.equals("lettuce") ? "lettuce-core-" : "jedis-") + clientLine);
    String serverJar = server.equals("Tomcat") ? "tomcat-embed-core-" : "undertow-servlet-";
    String otherServer = server.equals("Tomcat") ? "undertow-" : "tomcat-embed-core-";
    SpringBoot4IT.assertHolds(jar, serverJar + serverLine);
    List<String> libs = SpringBootApp.libs(jar);
    assertFalse(
        libs.stream().anyMatch(l -> l.startsWith(otherServer)),
        () -> jar + " must not hold " + otherServer + libs);

    Map<String, String> properties = new TreeMap<>(SpringBootIT.PROPERTIES);
    properties.putAll(SpringBootIdempotencyIT.properties());
    List<String> args =
        new ArrayList<>(
            List.of("--spring.redis.host=" + redis.host(), "--spring.redis.port=" + redis.port()));
    if (client.equals("jedis")) {
      args.add("--spring.profiles.active=jedis");
    }
    String label = "boot2.7-" + client + "-" + server.toLowerCase(Locale.ROOT);
    SpringBootApp app = SpringBootApp.start(label, jar, properties, args.toArray(String[]::new));
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
}
