package io.hotkey.agent.idempotency.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.idempotency.HttpAnswer;
import io.hotkey.agent.idempotency.store.AsyncRecordStore;
import io.hotkey.agent.idempotency.store.ClaimResult;
import io.hotkey.agent.idempotency.store.StoreException;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.testing.RedisPerClass;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The redis store over a transport that answers later ({@link RedisRecordStore#over}): the records
 * it writes are the blocking store's, a script Redis forgot is sent again in full, and a broken
 * connection is the store's failure. A real Redis behind both.
 */
class RedisTransportCallsTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration TTL = Duration.ofMinutes(5);
  private static final byte[] FINGERPRINT = new byte[32];
  private static final HttpAnswer ANSWER =
      new HttpAnswer(201, List.of(), "{\"order\":1}".getBytes(StandardCharsets.UTF_8));

  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();

  private static RedisEndpoint endpoint() {
    return RedisEndpoint.of("127.0.0.1", redis.port());
  }

  private static <T> T done(CompletionStage<T> stage) {
    return stage.toCompletableFuture().join();
  }

  @Test
  void recordsAreTheBlockingStores() throws Exception {
    try (RedisRecordStore store = new RedisRecordStore(endpoint());
        OneConnectionTransport transport = new OneConnectionTransport(endpoint())) {
      AsyncRecordStore calls = store.over(transport, Runnable::run);
      String key = "POST /orders POST scope " + UUID.randomUUID();
      ClaimResult claimed = done(calls.claim(key, FINGERPRINT, LEASE));
      assertEquals(ClaimResult.Kind.CLAIMED, claimed.kind());
      assertEquals(ClaimResult.Kind.IN_PROGRESS, store.claim(key, FINGERPRINT, LEASE).kind());
      assertTrue(done(calls.complete(key, claimed.token(), ANSWER, TTL)));
      assertEquals(ANSWER, store.claim(key, FINGERPRINT, LEASE).response());
      assertEquals(ANSWER, done(calls.claim(key, FINGERPRINT, LEASE)).response());

      String other = key + " released";
      ClaimResult second = done(calls.claim(other, FINGERPRINT, LEASE));
      assertFalse(done(calls.release(other, second.token() + 1)), "fenced out");
      assertTrue(done(calls.release(other, second.token())));
      assertEquals(ClaimResult.Kind.CLAIMED, store.claim(other, FINGERPRINT, LEASE).kind());

      String token = "token " + UUID.randomUUID();
      assertTrue(done(calls.issue(token, "me", TTL)));
      assertEquals(
          ClaimResult.Kind.WRONG_CALLER,
          done(calls.claimIssued(token, "you", FINGERPRINT, LEASE)).kind());
      assertEquals(
          ClaimResult.Kind.CLAIMED,
          done(calls.claimIssued(token, "me", FINGERPRINT, LEASE)).kind());
    }
  }

  @Test
  void aScriptRedisForgotIsSentInFull() throws Exception {
    try (RedisRecordStore store = new RedisRecordStore(endpoint());
        OneConnectionTransport transport = new OneConnectionTransport(endpoint())) {
      AsyncRecordStore calls = store.over(transport, Runnable::run);
      done(calls.claim("warm " + UUID.randomUUID(), FINGERPRINT, LEASE));
      transport.send(new byte[][] {bytes("SCRIPT"), bytes("FLUSH")});
      transport.sent.clear();
      assertEquals(
          ClaimResult.Kind.CLAIMED,
          done(calls.claim("after flush " + UUID.randomUUID(), FINGERPRINT, LEASE)).kind());
      assertEquals(List.of("EVALSHA", "EVAL"), transport.sent);
      transport.sent.clear();
      done(calls.claim("known again " + UUID.randomUUID(), FINGERPRINT, LEASE));
      assertEquals(List.of("EVALSHA"), transport.sent);
    }
  }

  @Test
  void aBrokenConnectionIsTheStoresFailure() throws Exception {
    try (RedisRecordStore store = new RedisRecordStore(endpoint());
        OneConnectionTransport transport = new OneConnectionTransport(endpoint())) {
      AsyncRecordStore calls = store.over(transport, Runnable::run);
      transport.close();
      CompletionException failed =
          assertThrows(
              CompletionException.class,
              () -> done(calls.claim("broken " + UUID.randomUUID(), FINGERPRINT, LEASE)));
      assertInstanceOf(StoreException.class, failed.getCause());
      assertTrue(failed.getCause().getMessage().startsWith("claim on "), failed::getMessage);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }
}
