package io.hotkey.agent.idempotency.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.idempotency.HttpAnswer;
import io.hotkey.agent.idempotency.store.AsyncRecordStore;
import io.hotkey.agent.idempotency.store.ClaimResult;
import io.hotkey.agent.testing.RedisClusterProcesses;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The redis store on a 3-master Redis Cluster, given only one node: records of every bucket land on
 * their slot's master, and a slot migrated while records are being written loses no write and
 * refuses none.
 */
class RedisClusterStoreTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration TTL = Duration.ofMinutes(5);
  private static final byte[] FINGERPRINT = new byte[32];
  private static RedisClusterProcesses cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = RedisClusterProcesses.start(3);
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static RedisRecordStore store() {
    return new RedisRecordStore(cluster.endpoint(0), Duration.ofSeconds(5));
  }

  private static HttpAnswer answer(String key) {
    return new HttpAnswer(200, List.of(), key.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Over a transport to one node (which does not follow redirections), a record of another node's
   * slot goes to the blocking client, which does, and so do every later call.
   */
  @Test
  void aTransportsRedirectionGoesToTheBlockingClient() throws Exception {
    try (RedisRecordStore store = store();
        OneConnectionTransport transport = new OneConnectionTransport(cluster.endpoint(0))) {
      AsyncRecordStore calls = store.over(transport, Runnable::run);
      for (int i = 0; i < 20; i++) {
        String key = "POST /orders POST scope " + UUID.randomUUID();
        ClaimResult claimed = calls.claim(key, FINGERPRINT, LEASE).toCompletableFuture().join();
        assertEquals(ClaimResult.Kind.CLAIMED, claimed.kind());
        assertTrue(
            calls.complete(key, claimed.token(), answer(key), TTL).toCompletableFuture().join());
        assertEquals(answer(key), store.claim(key, FINGERPRINT, LEASE).response());
      }
      int sentBeforeRedirect = transport.sent.size();
      assertTrue(sentBeforeRedirect < 40, "a redirection moved the calls to the blocking client");
      calls.claim("one more " + UUID.randomUUID(), FINGERPRINT, LEASE).toCompletableFuture().join();
      assertEquals(sentBeforeRedirect, transport.sent.size(), "none on the transport after it");
    }
  }

  @Test
  void recordsOfEveryBucketLiveOnTheirSlotsMaster() throws Exception {
    try (RedisRecordStore store = store()) {
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        String key = "POST /orders POST scope " + UUID.randomUUID();
        keys.add(key);
        ClaimResult claimed = store.claim(key, FINGERPRINT, LEASE);
        assertEquals(ClaimResult.Kind.CLAIMED, claimed.kind());
        assertTrue(store.complete(key, claimed.token(), answer(key), TTL));
        String token = "token " + UUID.randomUUID();
        assertTrue(store.issue(token, "me", TTL));
        assertEquals(
            ClaimResult.Kind.CLAIMED, store.claimIssued(token, "me", FINGERPRINT, LEASE).kind());
      }
      for (String key : keys) {
        ClaimResult replay = store.claim(key, FINGERPRINT, LEASE);
        assertEquals(answer(key), replay.response());
      }
      for (int node = 0; node < cluster.size(); node++) {
        long records = (Long) cluster.call(node, "DBSIZE");
        assertTrue(records > 100, "node " + node + " holds " + records + " keys");
      }
    }
  }

  @Test
  void aSlotMigratedWhileRecordsAreWrittenLosesAndRefusesNothing() throws Exception {
    // the other test's records and tokens land in any slot, this one's too now and then
    for (int node = 0; node < cluster.size(); node++) {
      cluster.call(node, "FLUSHALL");
    }
    int slot = 1234;
    int source = cluster.initialOwner(slot);
    int target = (source + 1) % cluster.size();
    List<String> keys = keysInSlot(slot, 400);
    Map<String, Long> completed = new ConcurrentHashMap<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    AtomicBoolean migrating = new AtomicBoolean();
    AtomicInteger duringMigration = new AtomicInteger();
    try (RedisRecordStore store = store()) {
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        List<String> mine = keys.subList(w * 100, (w + 1) * 100);
        Thread writer =
            new Thread(
                () -> {
                  for (String key : mine) {
                    try {
                      ClaimResult claimed = store.claim(key, FINGERPRINT, LEASE);
                      assertEquals(ClaimResult.Kind.CLAIMED, claimed.kind(), key);
                      assertTrue(store.complete(key, claimed.token(), answer(key), TTL), key);
                      completed.put(key, claimed.token());
                      if (migrating.get()) {
                        duringMigration.incrementAndGet();
                      }
                      Thread.sleep(2);
                    } catch (Throwable t) {
                      failures.add(t);
                    }
                  }
                });
        writer.start();
        writers.add(writer);
      }
      while (completed.size() < 60) {
        Thread.sleep(5);
      }
      migrating.set(true);
      migrate(slot, source, target);
      migrating.set(false);
      for (Thread writer : writers) {
        writer.join(120_000);
      }
      assertEquals(List.of(), failures);
      assertEquals(keys.size(), completed.size());
      assertTrue(duringMigration.get() > 0, "some records were written while the slot moved");
      assertEquals(
          keys.size(), new java.util.HashSet<>(completed.values()).size(), "unique tokens");
      for (String key : keys) {
        ClaimResult replay = store.claim(key, FINGERPRINT, LEASE);
        assertEquals(ClaimResult.Kind.COMPLETED, replay.kind(), key);
        assertEquals(answer(key), replay.response());
      }
      assertEquals(0L, cluster.call(source, "CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)));
      assertEquals(
          (long) keys.size(),
          cluster.call(target, "CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)),
          "every record moved");
      System.out.println(
          "[test] slot "
              + slot
              + " moved from node "
              + source
              + " to "
              + target
              + " while "
              + duringMigration.get()
              + " of "
              + keys.size()
              + " records were written");
    }
  }

  /** Moves a slot key by key, slowly, as redis-cli --cluster reshard does. */
  private static void migrate(int slot, int source, int target) throws Exception {
    String sourceId = cluster.nodeId(source);
    String targetId = cluster.nodeId(target);
    String slotText = Integer.toString(slot);
    assertEquals("OK", cluster.call(target, "CLUSTER", "SETSLOT", slotText, "IMPORTING", sourceId));
    assertEquals("OK", cluster.call(source, "CLUSTER", "SETSLOT", slotText, "MIGRATING", targetId));
    while (true) {
      List<?> batch = (List<?>) cluster.call(source, "CLUSTER", "GETKEYSINSLOT", slotText, "3");
      if (batch.isEmpty()) {
        break;
      }
      List<String> command =
          new ArrayList<>(
              List.of(
                  "MIGRATE",
                  "127.0.0.1",
                  Integer.toString(cluster.port(target)),
                  "",
                  "0",
                  "5000",
                  "KEYS"));
      for (Object key : batch) {
        command.add(new String((byte[]) key, StandardCharsets.UTF_8));
      }
      assertEquals("OK", cluster.call(source, command.toArray(new String[0])));
      Thread.sleep(10);
    }
    for (int node = 0; node < cluster.size(); node++) {
      assertEquals("OK", cluster.call(node, "CLUSTER", "SETSLOT", slotText, "NODE", targetId));
    }
  }

  /** {@code count} record keys whose Redis keys are in {@code slot}. */
  private static List<String> keysInSlot(int slot, int count) {
    List<String> keys = new ArrayList<>();
    for (long i = 0; keys.size() < count; i++) {
      String key = "POST /orders POST scope k" + i;
      if (slotOf(RedisRecordStore.redisKey(key)) == slot) {
        keys.add(key);
      }
    }
    return keys;
  }

  /** Redis Cluster's CRC16 of the key's hash tag. */
  private static int slotOf(byte[] key) {
    int open = indexOf(key, (byte) '{', 0);
    int close = indexOf(key, (byte) '}', open + 1);
    int crc = 0;
    for (int i = open + 1; i < close; i++) {
      crc ^= (key[i] & 0xff) << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      crc &= 0xffff;
    }
    return crc & 16383;
  }

  private static int indexOf(byte[] bytes, byte wanted, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == wanted) {
        return i;
      }
    }
    throw new IllegalArgumentException("no " + (char) wanted);
  }
}
