package io.hotkey.agent.idempotency;

import static io.hotkey.agent.idempotency.TestEngines.bytes;
import static io.hotkey.agent.idempotency.TestEngines.decide;
import static io.hotkey.agent.idempotency.TestEngines.text;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.core.Sha256;
import io.hotkey.agent.idempotency.store.MemoryRecordStore;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Who a record belongs to: headers, principal and session cookies, hashed together. */
class CallerScopeTest {
  private final IdempotencyEngine engine =
      TestEngines.engine(new MemoryRecordStore(1 << 20, System::nanoTime));
  private final CallerScope scope =
      new CallerScope(List.of("Authorization"), List.of("JSESSIONID", "SESSION"));

  @Test
  void twoCookieSessionsWithOneKeyNeverShareARecord() {
    TestRequests alice =
        TestRequests.post("/orders").key("order-1").cookie("JSESSIONID=alice-1").body("{}");
    TestRequests bob =
        TestRequests.post("/orders").key("order-1").cookie("JSESSIONID=bob-2").body("{}");
    Decision first = decide(engine, alice);
    assertEquals(Outcome.EXECUTE, first.outcome());
    first.execution().finish(201, List.of(), bytes("alice's order"), true);
    Decision other = decide(engine, bob);
    assertEquals(Outcome.EXECUTE, other.outcome(), "bob's request runs: another session");
    other.execution().finish(201, List.of(), bytes("bob's order"), true);
    assertEquals("alice's order", text(decide(engine, alice.copy()).answer()));
    assertEquals("bob's order", text(decide(engine, bob.copy()).answer()));
  }

  @Test
  void twoPrincipalsWithOneKeyNeverShareARecord() {
    TestRequests alice = TestRequests.post("/orders").key("k").principal("alice");
    TestRequests bob = TestRequests.post("/orders").key("k").principal("bob");
    decide(engine, alice).execution().finish(201, List.of(), bytes("alice"), true);
    Decision other = decide(engine, bob);
    assertEquals(Outcome.EXECUTE, other.outcome());
    other.execution().finish(201, List.of(), bytes("bob"), true);
    assertArrayEquals(bytes("alice"), decide(engine, alice.copy()).answer().body());
    assertEquals(
        Outcome.EXECUTE,
        decide(engine, TestRequests.post("/orders").key("k")).outcome(),
        "no principal: yet another caller");
  }

  @Test
  void everyScopePartAndItsPlaceCount() throws Exception {
    String none = scope.of(TestRequests.post("/x"));
    String[] scopes = {
      none,
      scope.of(TestRequests.post("/x").principal("a")),
      scope.of(TestRequests.post("/x").cookie("JSESSIONID=a")),
      scope.of(TestRequests.post("/x").cookie("SESSION=a")),
      scope.of(TestRequests.post("/x").header("Authorization", "a")),
      scope.of(TestRequests.post("/x").cookie("JSESSIONID=a; SESSION=b")),
      scope.of(TestRequests.post("/x").cookie("JSESSIONID=b; SESSION=a")),
      scope.of(TestRequests.post("/x").cookie("JSESSIONID=a").cookie("JSESSIONID=b")),
    };
    for (int i = 0; i < scopes.length; i++) {
      for (int j = i + 1; j < scopes.length; j++) {
        assertNotEquals(scopes[i], scopes[j], i + " vs " + j);
      }
    }
    assertEquals(
        none,
        scope.of(TestRequests.post("/x").cookie("theme=dark; jsessionid=a")),
        "other cookies, and names in another case, are not scope cookies");
    assertEquals(
        scopes[5],
        scope.of(TestRequests.post("/x").cookie(" SESSION=b ;JSESSIONID=a ")),
        "order of cookies and spaces around them do not matter");
  }

  @Test
  void withoutPrincipalOrCookieTheScopeIsTheHeadersAloneAsBefore() throws Exception {
    // the hash earlier versions filed records under: the count of headers, then each value
    java.security.MessageDigest digest = java.security.MessageDigest.getInstance("SHA-256");
    digest.update(new byte[] {0, 0, 0, 1, 0, 0, 0, 8});
    digest.update(bytes("Bearer a"));
    assertEquals(
        Sha256.hex(digest.digest()),
        scope.of(TestRequests.post("/x").header("Authorization", "Bearer a")));
  }

  @Test
  void aCallerWithNoScopePartHasTheScopeItAlwaysHad() throws Exception {
    // one scope header, sent with no value
    java.security.MessageDigest digest = java.security.MessageDigest.getInstance("SHA-256");
    digest.update(new byte[] {0, 0, 0, 1, 0, 0, 0, 0});
    String nothing = Sha256.hex(digest.digest());
    assertEquals(nothing, scope.of(TestRequests.post("/x")));
    assertEquals(nothing, scope.of(TestRequests.post("/y").key("k")), "the same for every request");
    assertEquals(
        nothing,
        scope.of(TestRequests.post("/x").header("Authorization", "")),
        "an empty scope header is hashed, and hashes as none");
    assertEquals(
        nothing,
        scope.of(TestRequests.post("/x").cookie("theme=dark")),
        "a Cookie header without scope cookies is parsed, and hashes as none");
    assertNotEquals(nothing, scope.of(TestRequests.post("/x").header("Authorization", "a")));
  }

  @Test
  void oversizedOrControlCharacterScopeCookiesAre400AndNeverRun() throws Exception {
    String huge = "JSESSIONID=" + "a".repeat(CallerScope.MAX_COOKIE_LENGTH + 1);
    for (String cookie : new String[] {huge, "SESSION=ab\u0001cd"}) {
      Decision decision = decide(engine, TestRequests.post("/orders").key("k").cookie(cookie));
      assertEquals(Outcome.INVALID_COOKIE, decision.outcome(), cookie.substring(0, 12));
      assertEquals(400, decision.answer().status());
      assertEquals("application/problem+json", decision.answer().header("Content-Type"));
      assertTrue(text(decision.answer()).contains("invalid-cookie"), text(decision.answer()));
    }
    assertEquals(2, engine.meters().invalidCookie());
    assertThrows(
        CallerScope.InvalidCookie.class, () -> scope.of(TestRequests.post("/x").cookie(huge)));
    assertEquals(
        Outcome.EXECUTE,
        decide(engine, TestRequests.post("/orders").key("k").cookie("theme=" + "x".repeat(9000)))
            .outcome(),
        "a cookie that does not scope is never looked at");
  }
}
