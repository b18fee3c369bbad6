package io.hotkey.it;

import static io.hotkey.it.IdempotencyOverHttp.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Idempotency-Key at a Spring Cloud Gateway (spring-gateway-app/: spring-cloud 2025.0.0, gateway
 * 4.3 on Boot 3.5 and Reactor Netty) run with {@code -javaagent:}, the redis store and no code
 * change, in front of a backend without the agent ({@code io.hotkey.it.app.IdempotentOrdersApp}, a
 * JDK {@code HttpServer} that appends a line to a file per request it runs), both over real
 * sockets. The gateway's one route proxies {@code /orders/**} to the backend, so every run the
 * checks count is a request the backend saw: the proofs shared with the other servers ({@link
 * IdempotencyOverHttp}: concurrent duplicates reach the backend once, replays are its answer byte
 * for byte and marked, 422, a 500 and a dropped connection release the key, bad keys 400), a client
 * that disconnects while the backend works, two principals (set by the gateway's own {@code
 * WebFilter}) that never share a record, the rest of the playbook ({@link PlaybookOverHttp}:
 * session cookies, the keyless guard with 200 concurrent submits, tokens), and the gateway's {@code
 * hotkey.idempotency.requests} counters, outcome by outcome.
 */
class GatewayIdempotencyIT extends RedisTestBase {
  @Test
  void routeProxiedToTheBackendIsDeduplicatedAtTheGateway() throws Exception {
    Path runs = Files.createTempFile(ItConfig.workDir(), "gateway-backend-runs-", ".txt");
    try (RunningJvm backend = startBackend(runs);
        SpringBootApp gateway =
            startGateway("gateway-redis", SpringBootApp.gatewayJar(), backend.base())) {
      IdempotencyOverHttp.Runs backendRuns = () -> Files.readAllLines(runs).size();
      IdempotencyOverHttp http =
          new IdempotencyOverHttp("gateway", gateway.base(), "/orders", backendRuns);
      http.proveAll();
      WebFluxIdempotencyIT.disconnectReleasesTheKey(gateway, http);
      WebFluxIdempotencyIT.principalsNeverShare(http);
      new PlaybookOverHttp("gateway", gateway.base(), http).proveAll();

      try (Jedis jedis = redis.jedis()) {
        assertFalse(jedis.keys("hotkey:idem:*").isEmpty(), "the records are in Redis");
      }
      countedAndClean(gateway, http);
      System.out.println("[it] gateway: the backend ran " + http.runs() + " requests");
    }
  }

  /**
   * The same gateway on the newest release line (spring-cloud 2025.1.4, gateway 5.0 on Boot 4.0.7
   * and Spring 7), with the first of the proofs only, so that the class grows by one start: 200
   * concurrent duplicates reach the backend once, a retry is the backend's answer replayed, and 200
   * identical keyless submits run once inside the window and again after it.
   */
  @Test
  void newestGatewayLineDeduplicatesToo() throws Exception {
    Path runs = Files.createTempFile(ItConfig.workDir(), "gateway4-backend-runs-", ".txt");
    try (RunningJvm backend = startBackend(runs);
        SpringBootApp gateway =
            startGateway("gateway4-redis", SpringBootApp.gateway4Jar(), backend.base())) {
      IdempotencyOverHttp.Runs backendRuns = () -> Files.readAllLines(runs).size();
      IdempotencyOverHttp http =
          new IdempotencyOverHttp("gateway boot 4", gateway.base(), "/orders", backendRuns);
      String key = UUID.randomUUID().toString();
      http.completedRequestIsReplayed(key, http.concurrentRequestsRunOnce(key));
      new PlaybookOverHttp("gateway boot 4", gateway.base(), http)
          .keylessDuplicatesRunOnceInsideTheWindow();
      countedAndClean(gateway, http);
    }
  }

  /** A backend without the agent that appends a line to {@code runs} per request it runs. */
  private static RunningJvm startBackend(Path runs) throws Exception {
    return AgentJvm.app(
            "gateway-backend",
            ItConfig.appClasses().toString(),
            "io.hotkey.it.app.IdempotentOrdersApp")
        .withoutAgent()
        .jvmOption("-XX:TieredStopAtLevel=1")
        .args("--runs", runs.toString())
        .timeout(Duration.ofSeconds(40))
        .start();
  }

  /**
   * The gateway counted each outcome as the requests caused it, was woven, and had no agent error.
   */
  private static void countedAndClean(SpringBootApp gateway, IdempotencyOverHttp http)
      throws Exception {
    String prometheus = get(gateway.base() + "/actuator/prometheus");
    http.assertCounted("/actuator/prometheus", WebFluxIdempotencyIT.outcomes(prometheus));
    assertEquals(0.0, SpringBootIT.sample(prometheus, "hotkey_agent_errors_total"), "errors");
    ChildRun end = gateway.snapshot();
    assertTrue(
        end.stderrContains(
            "[hotkey] instrumented org.springframework.web.server.adapter.HttpWebHandlerAdapter"),
        () -> "not woven" + end.describe());
    assertTrue(
        end.stderr().stream().noneMatch(l -> l.contains("[hotkey] internal error")),
        () -> "agent internal errors" + end.describe());
  }

  private SpringBootApp startGateway(String name, Path jar, String backend) throws Exception {
    Map<String, String> properties = new TreeMap<>(PlaybookOverHttp.PROPERTIES);
    properties.put("hotkey.idempotency.routes", "POST /orders");
    properties.put("hotkey.idempotency.store", "redis");
    properties.put("hotkey.idempotency.redis.uri", "redis://" + redis.host() + ":" + redis.port());
    properties.put("hotkey.report.interval", "0");
    String route = "--spring.cloud.gateway.server.webflux.routes[0].";
    SpringBootApp gateway =
        SpringBootApp.start(
            name,
            jar,
            properties,
            route + "id=orders",
            route + "uri=" + backend,
            route + "predicates[0]=Path=/orders/**");
    try {
      gateway.awaitReady(Duration.ofSeconds(150));
    } catch (Throwable t) {
      gateway.close();
      throw t;
    }
    return gateway;
  }
}
