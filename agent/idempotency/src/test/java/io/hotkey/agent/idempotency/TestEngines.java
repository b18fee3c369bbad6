package io.hotkey.agent.idempotency;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.hotkey.agent.idempotency.store.RecordStore;
import io.hotkey.config.RoutePattern;
import io.hotkey.config.RouteTable;
import io.hotkey.config.StoreFailurePolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Engines as the playbook's tests configure them: keys on {@code POST /orders/**}, the keyless
 * guard on {@code POST /checkout} (window 5 s), tokens from {@code POST /idempotency-tokens}
 * required on {@code POST /payments/**} (ttl 10 min); scoped by Authorization, the principal and
 * the JSESSIONID and SESSION cookies; lease 30 s, ttl 24 h, bodies up to 1 KB.
 */
final class TestEngines {
  static final Duration WINDOW = Duration.ofSeconds(5);
  static final Duration TOKEN_TTL = Duration.ofMinutes(10);
  static final Duration LEASE = Duration.ofSeconds(30);

  private TestEngines() {}

  static IdempotencyEngine engine(RecordStore store) {
    return new IdempotencyEngine(
        new IdempotencySettings(
                RouteTable.parse("POST /orders/**"),
                "Idempotency-Key",
                List.of("Authorization"),
                false,
                Duration.ofHours(24),
                LEASE,
                1024,
                StoreFailurePolicy.REJECT)
            .withScopeCookies(List.of("JSESSIONID", "SESSION"))
            .withDedupe(RouteTable.parse("POST /checkout"), WINDOW)
            .withTokens(
                RoutePattern.parse("POST /idempotency-tokens"),
                RouteTable.parse("POST /payments/**"),
                TOKEN_TTL),
        store);
  }

  static Decision decide(IdempotencyEngine engine, TestRequests request) {
    Route route = engine.route(request.method(), request.path());
    assertNotNull(route, "route for " + request.method() + " " + request.path());
    try {
      return engine.decide(
          route, request, limit -> request.body.length > limit ? null : request.body);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** Asks the token endpoint as {@code caller} would; returns the token. */
  static String issueToken(IdempotencyEngine engine, TestRequests caller) {
    TestRequests ask = TestRequests.post("/idempotency-tokens");
    for (String name : new String[] {"Authorization", "Cookie"}) {
      for (String value : caller.headerValues(name)) {
        ask.header(name, value);
      }
    }
    ask.principal(caller.principal());
    Decision issued = decide(engine, ask);
    if (issued.outcome() != Outcome.TOKEN_ISSUED) {
      throw new AssertionError("token endpoint answered " + issued);
    }
    return issued.answer().header("Idempotency-Key");
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static String text(HttpAnswer answer) {
    return new String(answer.body(), StandardCharsets.UTF_8);
  }
}
