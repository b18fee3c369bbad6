package io.hotkey.agent.core.threadbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.cache.HotKeyReads;
import io.hotkey.agent.core.ConnectionState;
import io.hotkey.agent.core.CoreFixture;
import io.hotkey.agent.core.RecordingEchoes;
import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.core.ReplyOutcome;
import io.hotkey.agent.core.ServedReply;
import io.hotkey.config.Glob;
import io.hotkey.config.KeyFilter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Drives the thread-bound gateway the way the Jedis adapter does (send, reply read, raw reply,
 * end), with real detector, command table and cache; only the network is left out.
 */
class ThreadBoundGatewayTest {
  private static final InetSocketAddress SERVER =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 6379);

  private final Object connection = new Object();
  private CoreFixture core;
  private ThreadBoundGateway gateway;

  @BeforeEach
  void setUp() {
    build(0, CoreFixture.EVERY_KEY, true);
  }

  private void build(long failEvery, KeyFilter filter, boolean cacheEnabled) {
    core = new CoreFixture(failEvery, filter, cacheEnabled);
    gateway = core.gateways.threadBound();
  }

  private static byte[][] argv(String... parts) {
    byte[][] argv = new byte[parts.length][];
    for (int i = 0; i < parts.length; i++) {
      argv[i] = parts[i].getBytes(StandardCharsets.UTF_8);
    }
    return argv;
  }

  /** One synchronous command, as the Jedis adapter runs it; returns what the application gets. */
  private Object execute(Object conn, byte[][] argv, Object redisReply) {
    ServedReply served = gateway.beginRead("test", conn, SERVER, argv, argv);
    if (served == null) {
      gateway.onSend(conn, null, argv, argv);
      gateway.onReplyRead(conn, ReplyOutcome.VALUE);
      gateway.onRawReply(redisReply);
    }
    gateway.endRead(false);
    return served != null ? served.raw : redisReply;
  }

  /** A local answer, if the gateway gives one; the adapter ends every attempt. */
  private ServedReply serve(Object conn, String... command) {
    ServedReply served = gateway.beginRead("test", conn, SERVER, new Object(), argv(command));
    gateway.endRead(false);
    return served;
  }

  /**
   * A pooled client's read of {@code GET hot} (Redis answers v1) as the Jedis adapter nests it: the
   * client's call, and inside it the call of the connection it borrowed, which only carries out the
   * outer decision (no second lookup, no second fill).
   */
  private void fillThroughPooledClient(Object client) {
    byte[][] get = argv("GET", "hot");
    assertNull(gateway.beginRead("test", client, null, get, get));
    assertNull(gateway.beginRead("test", connection, SERVER, get, get));
    gateway.onSend(connection, null, get, get);
    gateway.onReplyRead(connection, ReplyOutcome.VALUE);
    gateway.onRawReply("v1".getBytes(UTF_8));
    gateway.endRead(false);
    gateway.endRead(false);
  }

  private void makeHot(String key) {
    for (int i = 0; i < 200; i++) {
      gateway.onSend(connection, null, new Object(), argv("GET", key));
      gateway.onReplyRead(connection, ReplyOutcome.VALUE);
    }
    core.promote(key);
  }

  private boolean servedLocally(Object conn, String... command) {
    return serve(conn, command) != null;
  }

  @Test
  void coldKeysAreNeverServedLocally() {
    execute(connection, argv("GET", "cold"), "v".getBytes(UTF_8));
    assertNull(serve(connection, "GET", "cold"));
  }

  @Test
  void withTheCacheOffHotKeysAreCountedAndReportedButNeverServed() {
    build(0, CoreFixture.EVERY_KEY, false);
    makeHot("hot");
    long reads = core.gateways.reads();
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    assertNull(serve(connection, "GET", "hot"));
    execute(connection, argv("SET", "hot", "v2"), "OK".getBytes(UTF_8));
    assertEquals(
        reads + 1, core.gateways.reads(), "a read that was not served is counted when sent");
    assertEquals(1, core.gateways.writes());
  }

  @Test
  void aReadBeforeTheConnectionHasASocketNeitherFillsNorFixesWhichServerItTalksTo() {
    makeHot("hot");
    Object connecting = new Object();
    byte[][] get = argv("GET", "hot");
    assertNull(gateway.beginRead("test", connecting, ConnectionState.NOT_CONNECTED, get, get));
    gateway.onSend(connecting, null, get, get);
    gateway.onReplyRead(connecting, ReplyOutcome.VALUE);
    gateway.onRawReply("v1".getBytes(UTF_8));
    gateway.endRead(false);
    assertNull(serve(connection, "GET", "hot"), "the unconnected read filled an entry");

    execute(connection, get, "v1".getBytes(UTF_8));
    assertNotNull(
        serve(connecting, "GET", "hot"),
        "once connected, it shares the entries of the other connections to its server");
  }

  @Test
  void aHotKeyIsServedAfterOneFillWithAFreshEqualReply() {
    makeHot("hot");
    byte[] fromRedis = "v1".getBytes(UTF_8);
    assertEquals(fromRedis, execute(connection, argv("GET", "hot"), fromRedis));
    ServedReply first = serve(connection, "GET", "hot");
    ServedReply second = serve(connection, "GET", "hot");
    assertNotNull(first);
    assertArrayEquals(fromRedis, (byte[]) first.raw);
    assertTrue(first.raw != second.raw && first.raw != fromRedis);
  }

  @Test
  void aConnectionWhoseModuleLostItsPermitIsNeverServedButStillInvalidates() {
    makeHot("hot");
    byte[] fromRedis = "v1".getBytes(UTF_8);
    execute(connection, argv("GET", "hot"), fromRedis);
    assertNotNull(serve(connection, "GET", "hot"));

    core.permit.set(false);
    assertNull(serve(connection, "GET", "hot"), "a hook of its module is missing");
    execute(connection, argv("SET", "hot", "v2"), "OK".getBytes(UTF_8));
    core.permit.set(true);
    assertNull(serve(connection, "GET", "hot"), "the write invalidated the entry meanwhile");
  }

  /** A read that goes to Redis and fails there, as the Jedis adapter ends it. */
  private ServedReply failOnTheConnection(String... command) {
    ServedReply served = gateway.beginRead("test", connection, SERVER, new Object(), argv(command));
    assertNull(served, "a read that fails must have gone to Redis");
    ServedReply stale = gateway.staleRead(new IOException("Connection refused"));
    gateway.endRead(stale == null);
    return stale;
  }

  @Test
  void aReadThatFailsOnItsConnectionIsAnsweredFromTheLastValueUntilTheKeyChanges() {
    core = new CoreFixture(0, CoreFixture.EVERY_KEY, true, Duration.ofSeconds(60));
    gateway = core.gateways.threadBound();
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    // Redis went away: the tracking stream's loss distrusts every entry, which no longer serves
    core.versions.distrustAll();
    ServedReply stale = failOnTheConnection("GET", "hot");
    assertArrayEquals("v1".getBytes(UTF_8), (byte[]) stale.raw);
    assertEquals(1, core.cache.staleServed());
    // a write, even one whose reply was lost, ends it
    gateway.onSend(connection, null, new Object(), argv("SET", "hot", "v2"));
    gateway.onReplyRead(connection, ReplyOutcome.CONNECTION_LOST);
    assertNull(failOnTheConnection("GET", "hot"));
  }

  @Test
  void withoutServeStaleAFailedReadFails() {
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    core.versions.distrustAll();
    assertNull(failOnTheConnection("GET", "hot"));
  }

  /** Sends one command on {@code conn}, whose socket is connected to {@link #SERVER}. */
  private void send(Object conn, String... command) {
    gateway.onSend(conn, SERVER, new Object(), argv(command));
  }

  private RecordingEchoes.Expected onlyExpected() {
    List<RecordingEchoes.Expected> expected = core.echoes.expected();
    assertEquals(1, expected.size(), "expected reports");
    return expected.get(0);
  }

  @Test
  void aPlainSetOfAHotKeyExpectsItsReportWhichItsOkReplySettlesAfterInvalidating() {
    makeHot("hot");
    send(connection, "SET", "hot", "v2");
    RecordingEchoes.Expected echo = onlyExpected();
    assertEquals("hot", echo.key);
    assertEquals("127.0.0.1:6379", echo.node.host() + ":" + echo.node.port());
    assertEquals("pending", echo.settled());
    gateway.onReplyRead(connection, ReplyOutcome.VALUE);
    assertEquals("invalidated", echo.settled());
  }

  @Test
  void aSetAnsweredWithAnErrorOrLostCancelsItsExpectation() {
    makeHot("hot");
    send(connection, "SET", "hot", "v2");
    gateway.onReplyRead(connection, ReplyOutcome.ERROR);
    send(connection, "SET", "hot", "v3");
    gateway.onReplyRead(connection, ReplyOutcome.CONNECTION_LOST);
    send(connection, "SET", "hot", "v4");
    gateway.onConnectionClosed(connection);
    List<RecordingEchoes.Expected> expected = core.echoes.expected();
    assertEquals(3, expected.size());
    for (RecordingEchoes.Expected echo : expected) {
      assertEquals("cancelled", echo.settled());
    }
  }

  @Test
  void aPipelinedSetIsSettledWithTheLastWriteSentAfterIt() {
    makeHot("hot");
    send(connection, "SET", "hot", "v2");
    send(connection, "SET", "hot", "v3");
    send(connection, "DEL", "other");
    gateway.onReplyRead(connection, ReplyOutcome.VALUE);
    RecordingEchoes.Expected echo = onlyExpected();
    assertEquals("pending", echo.settled(), "its key is invalidated with the DEL's reply");
    gateway.onReplyRead(connection, ReplyOutcome.VALUE);
    gateway.onReplyRead(connection, ReplyOutcome.VALUE);
    assertEquals("invalidated", echo.settled());
  }

  @Test
  void onlyAPlainSetOfAHotKeyOnAConnectedConnectionOutsideMultiExpectsItsReport() {
    makeHot("hot");
    send(connection, "SET", "cold", "v");
    send(connection, "SET", "hot", "v", "EX", "10");
    send(connection, "APPEND", "hot", "v");
    gateway.onSend(connection, null, new Object(), argv("SET", "hot", "v"));
    send(connection, "MULTI");
    send(connection, "SET", "hot", "v");
    send(connection, "EXEC");
    Object subscriber = new Object();
    send(subscriber, "SUBSCRIBE", "news");
    send(subscriber, "SET", "hot", "v");
    assertEquals(List.of(), core.echoes.expected());
  }

  @Test
  void aReturnedWriteInvalidatesAtOnce() {
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    assertTrue(servedLocally(connection, "GET", "hot"));
    execute(connection, argv("SET", "hot", "v2"), "OK".getBytes(UTF_8));
    assertNull(serve(connection, "GET", "hot"));
  }

  @Test
  void aWriteOfManyKeysInvalidatesEachOfThem() {
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    assertTrue(servedLocally(connection, "GET", "hot"));
    // more keys than a thread classifies into its own array: the command gets one of its own
    String[] mset = new String[1 + 2 * 40];
    mset[0] = "MSET";
    for (int k = 0; k < 40; k++) {
      mset[1 + 2 * k] = k == 39 ? "hot" : "other:" + k;
      mset[2 + 2 * k] = "v2";
    }
    execute(connection, argv(mset), "OK".getBytes(UTF_8));
    assertNull(serve(connection, "GET", "hot"));
    execute(connection, argv("GET", "hot"), "v2".getBytes(UTF_8));
    assertTrue(servedLocally(connection, "GET", "hot"), "the next command is classified anew");
  }

  @Test
  void aPipelinedWriteInvalidatesOnceItsOwnReplyIsRead() {
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    Object pipeline = new Object();
    gateway.onSend(pipeline, null, new Object(), argv("GET", "other"));
    gateway.onSend(pipeline, null, new Object(), argv("SET", "hot", "v2"));
    gateway.onReplyRead(pipeline, ReplyOutcome.VALUE);
    // the SET's reply is not read, so it may not be applied yet: the old value is still one Redis
    // could give
    assertNotNull(serve(connection, "GET", "hot"));
    gateway.onReplyRead(pipeline, ReplyOutcome.VALUE);
    assertNull(serve(connection, "GET", "hot"));
  }

  @Test
  void aPipelineAbandonedOnOneConnectionLeavesTheThreadsOtherWritesInvalidating() {
    makeHot("hot");
    Object abandoned = new Object();
    gateway.onSend(abandoned, null, new Object(), argv("SET", "other", "x"));
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    assertTrue(servedLocally(connection, "GET", "hot"));
    execute(connection, argv("SET", "hot", "v2"), "OK".getBytes(UTF_8));
    assertNull(serve(connection, "GET", "hot"));
  }

  @Test
  void closingAConnectionWithUnreadRepliesInvalidatesWhatItWrote() {
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    Object pipeline = new Object();
    gateway.onSend(pipeline, null, new Object(), argv("MULTI"));
    gateway.onSend(pipeline, null, new Object(), argv("SET", "hot", "v2"));
    assertTrue(servedLocally(connection, "GET", "hot"));
    gateway.onConnectionClosed(pipeline);
    assertNull(serve(connection, "GET", "hot"));
  }

  @Test
  void aLostConnectionInvalidatesWhatItWrote() {
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    Object pipeline = new Object();
    gateway.onSend(pipeline, null, new Object(), argv("SET", "hot", "v2"));
    gateway.onSend(pipeline, null, new Object(), argv("GET", "other"));
    gateway.onReplyRead(pipeline, ReplyOutcome.CONNECTION_LOST);
    assertNull(serve(connection, "GET", "hot"));
  }

  @Test
  void connectionsOfAnotherUserNeverShareEntries() {
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    Object limited = new Object();
    execute(limited, argv("AUTH", "limited", "pw"), "OK".getBytes(UTF_8));
    assertNull(serve(limited, "GET", "hot"));
    Object admin = new Object();
    execute(admin, argv("HELLO", "2", "AUTH", "default", "pw"), "OK".getBytes(UTF_8));
    assertNotNull(serve(admin, "GET", "hot"));
  }

  @Test
  void aConnectionIsNotServedWhileItsAuthIsUnansweredNorAfterItFailed() {
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    assertTrue(servedLocally(connection, "GET", "hot"));
    gateway.onSend(connection, null, new Object(), argv("AUTH", "default", "wrong"));
    assertNull(serve(connection, "GET", "hot"));
    gateway.onReplyRead(connection, ReplyOutcome.ERROR);
    // the server kept the old identity, but the agent no longer knows it: nothing is shared with it
    assertNull(serve(connection, "GET", "hot"));
  }

  @Test
  void aPooledClientLeavesItsEntriesBehindWhenItsConnectionsChangeIdentity() {
    makeHot("hot");
    Object client = new Object();
    fillThroughPooledClient(client);
    assertNotNull(serve(client, "GET", "hot"));
    execute(connection, argv("AUTH", "limited", "pw"), "OK".getBytes(UTF_8));
    assertNull(serve(client, "GET", "hot"));
  }

  @Test
  void writesQueuedInMultiInvalidateOnlyAfterExecIsAnswered() throws Exception {
    makeHot("hot");
    Object tx = new Object();
    gateway.onSend(tx, null, new Object(), argv("MULTI"));
    gateway.onSend(tx, null, new Object(), argv("SET", "hot", "v2"));
    gateway.onReplyRead(tx, ReplyOutcome.VALUE);
    gateway.onReplyRead(tx, ReplyOutcome.VALUE);
    // QUEUED is in, but the SET has not run: a fill now still reads v1 from Redis
    Thread filler = new Thread(() -> execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8)));
    filler.start();
    filler.join();
    assertTrue(servedLocally(connection, "GET", "hot"));
    gateway.onSend(tx, null, new Object(), argv("EXEC"));
    gateway.onReplyRead(tx, ReplyOutcome.VALUE);
    assertTrue(!servedLocally(connection, "GET", "hot"));
  }

  @Test
  void connectionsInWatchOrMultiAreNeverServed() {
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    Object watcher = new Object();
    gateway.onSend(watcher, null, new Object(), argv("WATCH", "hot"));
    gateway.onReplyRead(watcher, ReplyOutcome.VALUE);
    assertTrue(!servedLocally(watcher, "GET", "hot"));
    assertTrue(servedLocally(connection, "GET", "hot"));
    gateway.onSend(watcher, null, new Object(), argv("MULTI"));
    gateway.onReplyRead(watcher, ReplyOutcome.VALUE);
    assertTrue(!servedLocally(watcher, "GET", "hot"));
    gateway.onSend(watcher, null, new Object(), argv("EXEC"));
    gateway.onReplyRead(watcher, ReplyOutcome.VALUE);
    execute(watcher, argv("GET", "hot"), "v1".getBytes(UTF_8));
    assertTrue(servedLocally(watcher, "GET", "hot"));
  }

  @Test
  void anotherDatabaseOrProtocolNeverSharesEntries() {
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "db0".getBytes(UTF_8));
    Object otherDb = new Object();
    gateway.onSend(otherDb, null, new Object(), argv("SELECT", "1"));
    gateway.onReplyRead(otherDb, ReplyOutcome.VALUE);
    assertTrue(!servedLocally(otherDb, "GET", "hot"));
    Object resp3 = new Object();
    gateway.onSend(resp3, null, new Object(), argv("HELLO", "3"));
    gateway.onReplyRead(resp3, ReplyOutcome.VALUE);
    assertTrue(!servedLocally(resp3, "GET", "hot"));
  }

  @Test
  void aConnectionWhoseSessionEndedIsInDatabaseZeroAgain() {
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "db0".getBytes(UTF_8));
    Object reconnecting = new Object();
    gateway.onSend(reconnecting, null, new Object(), argv("SELECT", "2"));
    gateway.onReplyRead(reconnecting, ReplyOutcome.VALUE);
    execute(reconnecting, argv("GET", "hot"), "db2".getBytes(UTF_8));
    assertArrayEquals("db2".getBytes(UTF_8), (byte[]) serve(reconnecting, "GET", "hot").raw);
    gateway.onSessionEnded(reconnecting);
    // its next socket is in database 0, whose entry it now reads
    assertArrayEquals("db0".getBytes(UTF_8), (byte[]) serve(reconnecting, "GET", "hot").raw);
  }

  @Test
  void flushAllInvalidatesEverything() {
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    execute(connection, argv("FLUSHALL"), "OK".getBytes(UTF_8));
    assertTrue(!servedLocally(connection, "GET", "hot"));
  }

  @Test
  void excludedKeysAreReportedHotButNotServed() {
    build(0, new KeyFilter(List.of(Glob.parse("*")), List.of(Glob.parse("session:*"))), true);
    makeHot("session:1");
    execute(connection, argv("GET", "session:1"), "v".getBytes(UTF_8));
    assertTrue(!servedLocally(connection, "GET", "session:1"));
  }

  /** Hits and misses of the hot key {@code key} since it became hot. */
  private long[] readsOf(String key) {
    HotKeyReads reads = core.registry.reads(key);
    assertNotNull(reads, key + " has no read counters");
    return new long[] {reads.hits(), reads.misses()};
  }

  @Test
  void eachHotKeyCountsItsLocalAnswersAsHitsAndItsReadsSentToRedisAsMisses() {
    makeHot("hot");
    makeHot("other");
    assertArrayEquals(new long[] {0, 0}, readsOf("hot"), "counted from the promotion on");
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8)); // the fill
    for (int i = 0; i < 3; i++) {
      assertTrue(servedLocally(connection, "GET", "hot"));
    }
    execute(connection, argv("SET", "hot", "v2"), "OK".getBytes(UTF_8));
    execute(connection, argv("GET", "hot"), "v2".getBytes(UTF_8)); // invalidated: a fill again
    assertTrue(servedLocally(connection, "GET", "hot"));
    // a read of a hot and a cold key goes to Redis: a miss of the hot one, nothing for the cold
    execute(connection, argv("MGET", "cold", "hot"), List.of("c", "v2"));
    assertArrayEquals(new long[] {4, 3}, readsOf("hot"));
    assertArrayEquals(new long[] {0, 0}, readsOf("other"), "another key's reads");
    assertNull(core.registry.reads("cold"), "a cold key has no counters");
  }

  @Test
  void aHotKeyThatIsNeverServedCountsEveryReadAsAMiss() {
    build(0, new KeyFilter(List.of(Glob.parse("*")), List.of(Glob.parse("session:*"))), true);
    makeHot("session:1");
    for (int i = 0; i < 3; i++) {
      execute(connection, argv("GET", "session:1"), "v".getBytes(UTF_8));
    }
    assertArrayEquals(new long[] {0, 3}, readsOf("session:1"));
  }

  @Test
  void withTheCacheOffNoReadIsCounted() {
    build(0, CoreFixture.EVERY_KEY, false);
    makeHot("hot");
    execute(connection, argv("GET", "hot"), "v1".getBytes(UTF_8));
    assertNull(core.registry.reads("hot"));
  }

  @Test
  void nonDeterministicReadsAreNeverServed() {
    makeHot("set");
    execute(connection, argv("SRANDMEMBER", "set"), "m".getBytes(UTF_8));
    assertTrue(!servedLocally(connection, "SRANDMEMBER", "set"));
    execute(connection, argv("TTL", "set"), 10L);
    assertTrue(!servedLocally(connection, "TTL", "set"));
  }

  @Test
  void theInnerLevelOfANestedCallOnlyCarriesOutTheOuterDecision() {
    makeHot("hot");
    Object client = new Object();
    fillThroughPooledClient(client);
    assertNotNull(serve(client, "GET", "hot"));
    // the client instance and the bare connection are different namespaces
    assertNull(serve(connection, "GET", "hot"));
  }

  @Test
  void aFailureInsideTheGatewayStillInvalidatesTheWrite() {
    build(1, CoreFixture.EVERY_KEY, true);
    // every hook fails: the send cannot be tied to its keys, so the reply read must invalidate
    // everything
    RedisHooks.activate(core.gateways);
    try {
      RedisHooks.onSend(connection, null, new Object(), argv("SET", "k", "v"));
      RedisHooks.onReplyRead(connection, ReplyOutcome.VALUE);
      assertTrue(core.errors.count() >= 1);
    } finally {
      RedisHooks.activate(null);
    }
  }
}
