package io.hotkey.agent.idempotency.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.idempotency.HttpAnswer;
import io.hotkey.agent.idempotency.store.ClaimResult;
import io.hotkey.agent.idempotency.store.StoreException;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.testing.RedisBuild;
import io.hotkey.agent.testing.RedisProcess;
import io.hotkey.agent.testing.TestCertificates;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * How the redis store reaches a production Redis: TLS against certificates made here, ACL users,
 * RESP2 and RESP3, on Redis 6.2 and Debian's Redis 7.
 */
class RedisStoreConnectionsTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final HttpAnswer ANSWER =
      new HttpAnswer(201, List.of(), "{\"order\":1}".getBytes(StandardCharsets.UTF_8));
  private static final byte[] FINGERPRINT = new byte[32];

  /** Claims, completes and replays one new key, and uses one token: the store works. */
  private static void works(RedisRecordStore store) throws Exception {
    String key = "POST /orders POST scope " + UUID.randomUUID();
    ClaimResult claimed = store.claim(key, FINGERPRINT, LEASE);
    assertEquals(ClaimResult.Kind.CLAIMED, claimed.kind());
    assertTrue(store.complete(key, claimed.token(), ANSWER, Duration.ofMinutes(1)));
    ClaimResult replay = store.claim(key, FINGERPRINT, LEASE);
    assertEquals(ClaimResult.Kind.COMPLETED, replay.kind());
    assertEquals(ANSWER, replay.response());
    String token = "token " + UUID.randomUUID();
    assertTrue(store.issue(token, "scope-a", Duration.ofMinutes(1)));
    assertEquals(
        ClaimResult.Kind.WRONG_CALLER,
        store.claimIssued(token, "scope-b", FINGERPRINT, LEASE).kind());
    assertEquals(
        ClaimResult.Kind.CLAIMED, store.claimIssued(token, "scope-a", FINGERPRINT, LEASE).kind());
  }

  private static RedisRecordStore store(RedisEndpoint endpoint) {
    return new RedisRecordStore(endpoint, Duration.ofSeconds(2));
  }

  @Test
  void tlsVerifiesTheServerAgainstTheGivenTrustStoreOrTheJvms() throws Exception {
    TestCertificates certificates = TestCertificates.create();
    try (RedisProcess redis = RedisProcess.startTls(RedisBuild.DEBIAN_7, certificates)) {
      for (String host : new String[] {"127.0.0.1", "localhost"}) {
        RedisEndpoint tls =
            RedisEndpoint.parse("test", URI.create("rediss://" + host + ":" + redis.port()));
        for (Path trustStore :
            new Path[] {certificates.caCertificate(), certificates.caTrustStore()}) {
          try (RedisRecordStore store = store(tls.withTrustStore(trustStore))) {
            works(store);
          }
        }
        try (RedisRecordStore jvmTrust = store(tls)) {
          StoreException refused =
              assertThrows(
                  StoreException.class,
                  () -> jvmTrust.claim("k", FINGERPRINT, LEASE),
                  "the JVM's own trust store does not know the test CA");
          assertTrue(String.valueOf(refused.getMessage()).contains("PKIX"), refused.getMessage());
        }
      }
      TestCertificates strangers = TestCertificates.create();
      RedisEndpoint other =
          RedisEndpoint.parse("test", URI.create("rediss://127.0.0.1:" + redis.port()))
              .withTrustStore(strangers.caCertificate());
      try (RedisRecordStore store = store(other)) {
        assertThrows(StoreException.class, () -> store.claim("k", FINGERPRINT, LEASE));
      }
      try (RedisRecordStore plain = store(RedisEndpoint.of("127.0.0.1", redis.port()))) {
        assertThrows(
            StoreException.class,
            () -> plain.claim("k", FINGERPRINT, LEASE),
            "plain RESP to a TLS port fails, it does not hang");
      }
    }
  }

  @Test
  void aTrustStoreWithoutCertificatesIsRefusedClearly() throws Exception {
    Path empty = Files.createTempFile("empty", ".pem");
    Files.writeString(empty, "not a certificate");
    RedisEndpoint tls = RedisEndpoint.parse("test", URI.create("rediss://127.0.0.1:1"));
    java.io.IOException refused =
        assertThrows(java.io.IOException.class, () -> tls.withTrustStore(empty));
    assertTrue(refused.getMessage().contains(empty.toString()), refused.getMessage());
  }

  @ParameterizedTest(name = "{0} RESP{1}")
  @CsvSource({"EMBEDDED_6_2, 2", "EMBEDDED_6_2, 3", "DEBIAN_7, 2", "DEBIAN_7, 3"})
  void anAclUserWithOnlyTheCommandsTheStoreNeeds(RedisBuild build, int protocol) throws Exception {
    try (RedisProcess redis = RedisProcess.start(build)) {
      try (RespConnection admin =
          new RespConnection(RedisEndpoint.of("127.0.0.1", redis.port()), 1000, 2000)) {
        Object created =
            admin.call(
                bytes("ACL"),
                bytes("SETUSER"),
                bytes("idem"),
                bytes("on"),
                bytes(">s3cret"),
                bytes("~hotkey:idem:*"),
                bytes("-@all"),
                bytes("+eval"),
                bytes("+evalsha"),
                bytes("+ping"),
                bytes("+hello"),
                bytes("+auth"),
                bytes("+hget"),
                bytes("+hmget"),
                bytes("+hset"),
                bytes("+hdel"),
                bytes("+del"),
                bytes("+incr"),
                bytes("+pexpire"),
                bytes("+pttl"),
                bytes("+time"));
        assertEquals("OK", created);
      }
      String uri = "redis://idem:s3cret@127.0.0.1:" + redis.port() + "?protocol=" + protocol;
      try (RedisRecordStore store = store(RedisEndpoint.parse("test", URI.create(uri)));
          RespConnection admin =
              new RespConnection(RedisEndpoint.of("127.0.0.1", redis.port()), 1000, 2000)) {
        works(store);
        String clients =
            new String((byte[]) admin.call(bytes("CLIENT"), bytes("LIST")), StandardCharsets.UTF_8);
        String storeClient =
            clients.lines().filter(line -> line.contains("user=idem")).findFirst().orElse("");
        assertTrue(!storeClient.isEmpty(), clients);
        // Redis 6.2 does not list the protocol; 7 does
        assertTrue(
            !storeClient.contains(" resp=") || storeClient.contains(" resp=" + protocol),
            storeClient);
      }
      String wrong = "redis://idem:guess@127.0.0.1:" + redis.port() + "?protocol=" + protocol;
      try (RedisRecordStore store = store(RedisEndpoint.parse("test", URI.create(wrong)))) {
        StoreException refused =
            assertThrows(StoreException.class, () -> store.claim("k", FINGERPRINT, LEASE));
        assertTrue(refused.getMessage().contains("WRONGPASS"), refused.getMessage());
      }
    }
  }

  private static byte[] bytes(String text) {
    return RespConnection.bytes(text);
  }
}
