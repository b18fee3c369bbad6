package io.hotkey.agent.core.multiplexed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.cache.HotKeyReads;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.cache.ParkedReads;
import io.hotkey.agent.cache.Resumption;
import io.hotkey.agent.core.CoreFixture;
import io.hotkey.agent.core.FieldReply;
import io.hotkey.agent.core.RecordingEchoes;
import io.hotkey.config.Glob;
import io.hotkey.config.KeyFilter;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Drives the gateway's per-command path the way the Lettuce adapter does: dispatch (answered,
 * parked or sent), the decoder's reply events, the command's end, and the resumption of the reads
 * parked behind it. Real detector, command table and cache; the events stand in for Redis' replies
 * in the order one connection delivers them (the integration tests run the same against Redis).
 * Every test runs with replies that carry the field the agent adds to Lettuce's reply class, and
 * with replies tracked by identity (Lettuce loaded before the agent attached).
 */
@ParameterizedClass(name = "replies {0}")
@ValueSource(strings = {"with the agent's field", "by identity"})
class MultiplexedGatewayTest {
  @Parameter String replies;

  private final Object connection = new Object();
  private CoreFixture core;
  private NearCache cache;
  private MultiplexedGateway gateway;

  /** What the adapter knows of the connection (Lettuce: closed, or without a channel). */
  private LocalAnswerCheck answerable = LocalAnswerCheck.ALWAYS;

  @BeforeEach
  void setUp() {
    build(true);
  }

  private void build(boolean cacheEnabled) {
    core = new CoreFixture(0, CoreFixture.EVERY_KEY, cacheEnabled);
    cache = core.cache;
    gateway = core.gateways.multiplexed();
  }

  /**
   * One command as the adapter sees it: its identity, its reply object, and its outcome at
   * dispatch.
   */
  private final class Command {
    final Object reply = replies.startsWith("with") ? new FieldReply() : new Object();
    final String[] argv;
    DispatchOutcome outcome;

    Command(String... argv) {
      this.argv = argv;
    }

    Command dispatch(Object conn) {
      outcome = gateway.resumption(this, answerable);
      if (outcome == null) {
        outcome =
            gateway.dispatch(
                "lettuce",
                conn,
                this,
                reply,
                bytes(argv[0]),
                encode(argv),
                argv.length - 1,
                answerable);
      }
      return this;
    }

    boolean parked() {
      return outcome == DispatchOutcome.PARKED;
    }

    boolean sent() {
      return outcome.sends();
    }

    /**
     * Redis answers with a bulk string (null: nil) and the command completes; returns the reads
     * resumed behind it.
     */
    List<Command> answer(String bulk) {
      gateway.onReplyBytes(reply, bulk == null ? null : ByteBuffer.wrap(bytes(bulk)), false);
      return done();
    }

    List<Command> fail() {
      gateway.onReplyError(reply);
      return done();
    }

    /** What the done advice does: every parked read is dispatched again between resume calls. */
    List<Command> done() {
      List<Command> out = new ArrayList<>();
      for (Resumption read : gateway.onCommandDone(reply)) {
        Command parked = (Command) read.command();
        gateway.resume(read);
        try {
          parked.dispatch(read.connection());
        } finally {
          gateway.resume(null);
        }
        out.add(parked);
      }
      return out;
    }

    /**
     * The command times out, or its connection fails under it: the bulk string it was answered with
     * instead, or null if the failure goes through.
     */
    String failed() {
      ReplyTape.Cursor stale = gateway.failedReads().answer(reply, "timed out");
      if (stale == null) {
        return null;
      }
      outcome = stale;
      return answered();
    }

    /** The bulk string a local answer replays, or null if it was not answered locally. */
    String answered() {
      ReplyTape.Cursor tape = outcome.replay();
      if (tape == null) {
        return null;
      }
      assertTrue(tape.next());
      assertEquals(ReplyTape.OP_BULK, tape.op());
      ByteBuffer value = tape.bytes();
      byte[] copy = new byte[value.remaining()];
      value.get(copy);
      return new String(copy, StandardCharsets.UTF_8);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static ByteBuffer encode(String[] argv) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 1; i < argv.length; i++) {
      byte[] arg = bytes(argv[i]);
      out.writeBytes(bytes("$" + arg.length + "\r\n"));
      out.writeBytes(arg);
      out.writeBytes(bytes("\r\n"));
    }
    return ByteBuffer.wrap(out.toByteArray());
  }

  private void makeHot(String key) {
    for (int i = 0; i < 200; i++) {
      new Command("GET", key).dispatch(connection).answer("v0");
    }
    core.promote(key);
  }

  @Test
  void withTheCacheOffHotKeysAreCountedAndReportedButEveryCommandIsSent() {
    build(false);
    makeHot("hot");
    long reads = core.gateways.reads();
    Command fill = new Command("GET", "hot").dispatch(connection);
    Command second = new Command("GET", "hot").dispatch(connection);
    assertTrue(fill.sent() && second.sent(), "no fill runs, so no read parks behind one");
    assertTrue(fill.answer("v1").isEmpty());
    second.answer("v1");
    assertTrue(new Command("GET", "hot").dispatch(connection).sent());
    Command set = new Command("SET", "hot", "v2").dispatch(connection);
    assertTrue(new Command("GET", "hot").dispatch(connection).sent(), "nor behind a SET");
    assertTrue(set.answer("OK").isEmpty());
    assertTrue(new Command("GET", "hot").dispatch(connection).sent());
    assertEquals(reads + 5, core.gateways.reads());
    assertEquals(1, core.gateways.writes());
  }

  @Test
  void aGetSentBehindASetOfAHotKeyWaitsForItAndIsAnsweredWithItsValue() {
    makeHot("hot");
    Command set = new Command("SET", "hot", "v1").dispatch(connection);
    Command get = new Command("GET", "hot").dispatch(connection);
    assertTrue(set.sent());
    assertTrue(get.parked(), "the GET must neither be answered from the old entry nor sent");
    long reads = core.gateways.reads();

    List<Command> resumed = set.answer("OK");

    assertEquals(List.of(get), resumed);
    assertEquals("v1", get.answered());
    assertEquals(reads, core.gateways.reads(), "a resumed read is not counted twice");
  }

  @Test
  void anotherThreadsReadOfAKeyWithAWriteInFlightIsNeverAnsweredFromTheEntry() throws Exception {
    makeHot("hot");
    new Command("GET", "hot").dispatch(connection).answer("v0");
    new Command("GETRANGE", "hot", "0", "0").dispatch(connection).answer("v");
    assertEquals("v", new Command("GETRANGE", "hot", "0", "0").dispatch(connection).answered());
    // sent and not awaited, as Spring Data Redis' cache puts are: a GET another thread sends behind
    // it on the shared connection sees it in Redis, so it must not be answered v0 here
    Command set = new Command("SET", "hot", "v1").dispatch(connection);
    Command get = onAnotherThread(() -> new Command("GET", "hot").dispatch(connection));
    assertTrue(get.parked(), "waits behind the SET, whose value answers it");
    Command range =
        onAnotherThread(() -> new Command("GETRANGE", "hot", "0", "0").dispatch(connection));
    assertTrue(range.sent(), "a read the SET's value does not answer goes to Redis behind it");

    assertEquals(List.of(get), set.answer("OK"));
    assertEquals("v1", get.answered());
    assertEquals(
        "v1",
        onAnotherThread(() -> new Command("GET", "hot").dispatch(connection)).answered(),
        "once the SET is answered every thread is served its value");
  }

  private static Command onAnotherThread(Supplier<Command> dispatch) throws InterruptedException {
    Command[] dispatched = new Command[1];
    Thread other = new Thread(() -> dispatched[0] = dispatch.get());
    other.start();
    other.join();
    return dispatched[0];
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "AUTH limited pw",
        "AUTH pw",
        "HELLO 3 AUTH limited pw",
        "HELLO 2",
        "RESET",
        "SELECT 1",
        "READONLY",
        "READWRITE"
      })
  void aCommandThatChangesTheConnectionsIdentityLeavesItsEntriesBehind(String change) {
    makeHot("hot");
    new Command("SET", "hot", "v1").dispatch(connection).answer("OK");
    assertEquals("v1", new Command("GET", "hot").dispatch(connection).answered());
    new Command(change.split(" ")).dispatch(connection).answer("OK");
    assertTrue(new Command("GET", "hot").dispatch(connection).sent(), "served after " + change);
  }

  @Test
  void aReconnectLeavesTheConnectionsEntriesBehind() {
    makeHot("hot");
    new Command("SET", "hot", "v1").dispatch(connection).answer("OK");
    assertEquals("v1", new Command("GET", "hot").dispatch(connection).answered());
    gateway.onConnectionReset(connection, false);
    assertTrue(new Command("GET", "hot").dispatch(connection).sent());
  }

  @Test
  void aConnectionWithoutAChannelIsNotServedWithoutServeStale() {
    makeHot("hot");
    new Command("SET", "hot", "v1").dispatch(connection).answer("OK");
    assertEquals("v1", new Command("GET", "hot").dispatch(connection).answered());
    gateway.onConnectionReset(connection, true);
    assertTrue(new Command("GET", "hot").dispatch(connection).sent());
  }

  @Test
  void withoutAChannelAReadIsAnsweredFromTheValueBeforeTheLossUntilTheKeyChanges() {
    core = new CoreFixture(0, CoreFixture.EVERY_KEY, true, Duration.ofSeconds(60));
    cache = core.cache;
    gateway = core.gateways.multiplexed();
    makeHot("hot");
    new Command("SET", "hot", "v1").dispatch(connection).answer("OK");
    assertEquals("v1", new Command("GET", "hot").dispatch(connection).answered());
    core.versions.distrustAll(); // Redis went away: the tracking stream is lost too
    gateway.onConnectionReset(connection, true);
    assertEquals("v1", new Command("GET", "hot").dispatch(connection).answered());
    assertEquals(1, cache.staleServed());
    // its channel is back: Redis answers again
    gateway.onConnectionReset(connection, false);
    assertTrue(new Command("GET", "hot").dispatch(connection).sent());
    // another connection's write ends it for good
    gateway.onConnectionReset(connection, true);
    Object other = new Object();
    new Command("SET", "hot", "v2").dispatch(other).answer("OK");
    assertTrue(new Command("GET", "hot").dispatch(connection).sent());
  }

  private void serveStale() {
    core = new CoreFixture(0, CoreFixture.EVERY_KEY, true, Duration.ofSeconds(60));
    cache = core.cache;
    gateway = core.gateways.multiplexed();
  }

  /** A hot key served with v1, then Redis hangs: the tracking stream's PING goes unanswered. */
  private void servedThenHung() {
    makeHot("hot");
    new Command("SET", "hot", "v1").dispatch(connection).answer("OK");
    assertEquals("v1", new Command("GET", "hot").dispatch(connection).answered());
    core.versions.distrustAll();
  }

  @Test
  void aHotReadThatTimesOutIsAnsweredWithTheLastValueAsAreTheReadsParkedBehindIt() {
    serveStale();
    servedThenHung();
    Command fill = new Command("GET", "hot").dispatch(connection);
    Command parked = new Command("GET", "hot").dispatch(connection);
    assertTrue(fill.sent() && parked.parked());
    assertTrue(gateway.failedReads().answerable(fill.reply));

    assertEquals("v1", fill.failed());
    assertNull(gateway.failedReads().answer(fill.reply, "timed out"), "the other path, too late");
    assertTrue(gateway.failedReads().answeredStale(fill.reply), "which leaves it to the first");
    assertFalse(gateway.failedReads().answeredStale(parked.reply));

    assertTrue(gateway.failedReads().replyDiscarded(fill.reply, false), "Redis wakes up at once");
    assertEquals(List.of(parked), fill.done());
    assertEquals("v1", parked.answered());
    parked.done();
    assertEquals(2, cache.staleServed());
    assertTrue(gateway.failedReads().replyDiscarded(fill.reply, true), "Redis wakes up later");
    assertFalse(gateway.failedReads().replyDiscarded(parked.reply, true), "never sent");
  }

  @Test
  void aFailedReadIsNotAnsweredOnceItsReplyArrivesNorAfterAWriteOfItsKey() {
    serveStale();
    servedThenHung();
    Command arriving = new Command("GET", "hot").dispatch(connection);
    assertFalse(gateway.failedReads().replyDiscarded(arriving.reply, false));
    assertFalse(gateway.failedReads().answerable(arriving.reply));
    assertNull(arriving.failed(), "its reply is being decoded into its output");
    arriving.done();

    Command overtaken = new Command("GET", "hot").dispatch(connection);
    new Command("SET", "hot", "v2").dispatch(new Object()).answer("OK");
    assertNull(overtaken.failed(), "the key was written since");
    assertEquals(0, cache.staleServed());
  }

  @Test
  void onlyAReadThatCouldHaveBeenServedIsAnsweredStale() {
    serveStale();
    servedThenHung();
    new Command("SET", "cold", "c").dispatch(connection).answer("OK");
    assertNull(new Command("GET", "cold").dispatch(connection).failed(), "a key that is not hot");
    new Command("SET", "hot", "v2").dispatch(connection);
    assertNull(new Command("GET", "hot").dispatch(connection).failed(), "behind its own write");
    Command multi = new Command("MULTI").dispatch(connection);
    assertNull(new Command("GET", "hot").dispatch(connection).failed(), "in a transaction");
    assertTrue(multi.sent());
    assertEquals(0, cache.staleServed());
  }

  @Test
  void withoutServeStaleAFailedReadIsNeverAnswered() {
    servedThenHung();
    Command read = new Command("GET", "hot").dispatch(connection);
    assertTrue(read.sent());
    assertFalse(gateway.failedReads().servesStale());
    assertNull(read.failed());
    assertFalse(gateway.failedReads().replyDiscarded(read.reply, true));
  }

  private RecordingEchoes.Expected onlyExpected() {
    List<RecordingEchoes.Expected> expected = core.echoes.expected();
    assertEquals(1, expected.size(), "expected reports");
    return expected.get(0);
  }

  private static final InetSocketAddress SERVER =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 6379);

  @Test
  void aPlainSetOfAHotKeyExpectsItsReportAtTheServerItIsWrittenTo() {
    makeHot("hot");
    Command set = new Command("SET", "hot", "v1").dispatch(connection);
    assertSame(DispatchOutcome.SEND_REPORTING_SERVER, set.outcome);
    assertEquals(List.of(), core.echoes.expected(), "not before its server is known");
    gateway.onWrittenTo(set.reply, SERVER);
    RecordingEchoes.Expected echo = onlyExpected();
    assertEquals("hot", echo.key);
    assertEquals(6379, echo.node.port());
    assertEquals("pending", echo.settled());
    set.answer("OK");
    assertEquals("invalidated", echo.settled());
  }

  @Test
  void aSetAnsweredWithAnErrorOrEndedWithoutAReplyCancelsItsExpectation() {
    makeHot("hot");
    Command refused = new Command("SET", "hot", "v1").dispatch(connection);
    gateway.onWrittenTo(refused.reply, SERVER);
    refused.fail();
    Command timedOut = new Command("SET", "hot", "v2").dispatch(connection);
    gateway.onWrittenTo(timedOut.reply, SERVER);
    timedOut.done();
    List<RecordingEchoes.Expected> expected = core.echoes.expected();
    assertEquals(2, expected.size());
    assertEquals("cancelled", expected.get(0).settled());
    assertEquals("cancelled", expected.get(1).settled());
  }

  @Test
  void anyOtherWriteIsSentWithoutItsServer() {
    makeHot("hot");
    assertSame(DispatchOutcome.SEND, new Command("SET", "cold", "v").dispatch(connection).outcome);
    assertSame(
        DispatchOutcome.SEND,
        new Command("SET", "hot", "v", "EX", "10").dispatch(connection).outcome);
    assertSame(DispatchOutcome.SEND, new Command("DEL", "hot").dispatch(connection).outcome);
    assertEquals(List.of(), core.echoes.expected());
  }

  @Test
  void theValueASetWroteIsServedAfterItsReplyWithoutAFill() {
    makeHot("hot");
    new Command("SET", "hot", "v1").dispatch(connection).answer("OK");
    assertEquals("v1", new Command("GET", "hot").dispatch(connection).answered());
  }

  /** Its server must report the key's changes: a Cluster node nobody tracks yet keeps nothing. */
  @Test
  void theValueASetWroteIsAdmittedAsComingFromTheServerItWasWrittenTo() {
    makeHot("hot");
    Command set = new Command("SET", "hot", "v1").dispatch(connection);
    gateway.onWrittenTo(set.reply, SERVER);
    set.answer("OK");
    List<String> admittedFrom = core.echoes.admittedFrom();
    assertEquals(1, admittedFrom.size());
    assertTrue(admittedFrom.get(0).endsWith(":6379"), admittedFrom.get(0));
    assertEquals("v1", new Command("GET", "hot").dispatch(connection).answered());
  }

  /**
   * The held report may carry another client's write applied just after the SET, so the SET's value
   * may be stale at once.
   */
  @Test
  void aReportHeldWhileTheSetWasInFlightKeepsItsValueFromBecomingTheEntry() {
    makeHot("hot");
    core.echoes.holdReports();
    Command set = new Command("SET", "hot", "v1").dispatch(connection);
    gateway.onWrittenTo(set.reply, SERVER);
    set.answer("OK");
    assertEquals("invalidated", onlyExpected().settled());
    assertTrue(new Command("GET", "hot").dispatch(connection).sent());
  }

  @Test
  void readsBehindSeveralSetsGetTheValueOfTheLastOneAnswered() {
    makeHot("hot");
    Command first = new Command("SET", "hot", "v1").dispatch(connection);
    Command second = new Command("SET", "hot", "v2").dispatch(connection);
    Command get = new Command("GET", "hot").dispatch(connection);
    assertTrue(get.parked());

    assertEquals(List.of(), first.answer("OK"), "the GET was sent after both SETs");
    assertEquals(List.of(get), second.answer("OK"));
    assertEquals("v2", get.answered());
    assertEquals("v2", new Command("GET", "hot").dispatch(connection).answered());
  }

  @Test
  void aPipelineOfSetsAndGetsReadsEachSetsOwnValueInOrder() {
    makeHot("hot");
    List<Command> sets = new ArrayList<>();
    List<Command> gets = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      sets.add(new Command("SET", "hot", "v" + i).dispatch(connection));
      gets.add(new Command("GET", "hot").dispatch(connection));
    }
    for (int i = 0; i < 5; i++) {
      assertTrue(gets.get(i).parked(), "GET " + (i + 1));
      assertEquals(
          List.of(gets.get(i)),
          sets.get(i).answer("OK"),
          "a GET goes on as soon as the SETs sent before it are answered, not later ones");
      assertEquals(
          "v" + (i + 1),
          gets.get(i).answered(),
          "Redis would answer GET " + (i + 1) + " after SET " + (i + 1));
    }
  }

  @Test
  void aGetParkedBehindSetsAnsweredOutOfSendingOrderGetsTheLastAnswered() {
    makeHot("hot");
    // two threads' SETs may reach the socket in another order than they passed the hook; Redis'
    // answers on the connection give the order it applied them in
    Command first = new Command("SET", "hot", "v1").dispatch(connection);
    Command second = new Command("SET", "hot", "v2").dispatch(connection);
    Command get = new Command("GET", "hot").dispatch(connection);
    assertEquals(List.of(), second.answer("OK"));
    assertEquals(List.of(get), first.answer("OK"));
    assertEquals("v1", get.answered());
    assertEquals("v1", new Command("GET", "hot").dispatch(connection).answered());
  }

  @Test
  void aGetIsNotParkedBehindAnotherWriteOrOnAnotherConnection() {
    makeHot("hot");
    Command set = new Command("SET", "hot", "v1").dispatch(connection);
    assertTrue(
        new Command("GET", "hot").dispatch(new Object()).sent(),
        "another connection is not ordered");
    assertTrue(new Command("GET", "other").dispatch(connection).sent());
    Command incr = new Command("APPEND", "hot", "x").dispatch(connection);
    assertTrue(
        new Command("GET", "hot").dispatch(connection).sent(),
        "the value after APPEND is not known");
    assertEquals(List.of(), set.answer("OK"));
    incr.answer(null);
    assertTrue(
        new Command("GET", "hot").dispatch(connection).sent(),
        "the run saw another write: nothing stored");
  }

  @Test
  void aWriteThatReturnedWhileTheSetWasInFlightStopsParkingAndStoring() {
    makeHot("hot");
    Command set = new Command("SET", "hot", "v1").dispatch(connection);
    // another connection's DEL returned: Redis may have applied it after the SET, so the GET must
    // go and see
    new Command("DEL", "hot").dispatch(new Object()).answer(null);
    assertTrue(new Command("GET", "hot").dispatch(connection).sent());
    set.answer("OK");
    assertTrue(
        new Command("GET", "hot").dispatch(connection).sent(),
        "the value after the run is not known");
  }

  @Test
  void aSetThatIsNotAnsweredOkSendsTheParkedReadsToRedis() {
    makeHot("hot");
    Command set = new Command("SET", "hot", "v1").dispatch(connection);
    Command get = new Command("GET", "hot").dispatch(connection);
    assertTrue(get.parked());

    assertEquals(List.of(get), set.fail());
    assertTrue(get.sent(), "resumed without an answer: the read goes to Redis");
    assertTrue(new Command("GET", "hot").dispatch(connection).sent());
  }

  @Test
  void aSetWithOptionsIsAnOrdinaryWrite() {
    makeHot("hot");
    Command set = new Command("SET", "hot", "v1", "EX", "100").dispatch(connection);
    assertTrue(new Command("GET", "hot").dispatch(connection).sent());
    set.answer("OK");
    assertTrue(
        new Command("GET", "hot").dispatch(connection).sent(), "expiring values are not stored");
  }

  @Test
  void readsThatMissWhileAFillRunsWaitForItsReply() {
    makeHot("hot");
    Command fill = new Command("GET", "hot").dispatch(connection);
    assertTrue(fill.sent());
    Command waiting = new Command("GET", "hot").dispatch(connection);
    Command fromAnotherConnection = new Command("GET", "hot").dispatch(new Object());
    assertTrue(waiting.parked());
    assertTrue(fromAnotherConnection.sent(), "another connection has entries of its own");

    assertEquals(List.of(waiting), fill.answer("v9"));
    assertEquals("v9", waiting.answered());
    assertEquals("v9", new Command("GET", "hot").dispatch(connection).answered());
  }

  @Test
  void aWriteOfManyKeysInvalidatesEachOfThem() {
    makeHot("hot");
    new Command("GET", "hot").dispatch(connection).answer("v1");
    assertEquals("v1", new Command("GET", "hot").dispatch(connection).answered());
    // more keys than a thread classifies into its own array: the command gets one of its own
    String[] mset = new String[1 + 2 * 40];
    mset[0] = "MSET";
    for (int k = 0; k < 40; k++) {
      mset[1 + 2 * k] = k == 39 ? "hot" : "other:" + k;
      mset[2 + 2 * k] = "v2";
    }
    new Command(mset).dispatch(connection).answer("OK");
    Command fill = new Command("GET", "hot").dispatch(connection);
    assertTrue(fill.sent());
    fill.answer("v2");
    assertEquals("v2", new Command("GET", "hot").dispatch(connection).answered());
  }

  @Test
  void aReadDoesNotWaitForAFillThatAWriteOvertook() {
    makeHot("hot");
    Command fill = new Command("GET", "hot").dispatch(connection);
    new Command("DEL", "hot").dispatch(connection).answer(null);
    assertTrue(
        new Command("GET", "hot").dispatch(connection).sent(),
        "the fill may carry the value before the DEL that returned");
    fill.answer("v9");
  }

  @Test
  void readsParkedOnAFailedFillGoToRedis() {
    makeHot("hot");
    Command fill = new Command("GET", "hot").dispatch(connection);
    Command waiting = new Command("GET", "hot").dispatch(connection);
    assertTrue(waiting.parked());
    assertEquals(List.of(waiting), fill.done());
    assertTrue(waiting.sent());
  }

  @Test
  void aParkedReadIsCountedAsAHitOnceAnswered() {
    makeHot("hot");
    Command set = new Command("SET", "hot", "v1").dispatch(connection);
    Command get = new Command("GET", "hot").dispatch(connection);
    long hits = cache.hits();
    set.answer("OK");
    assertEquals(hits + 1, cache.hits());
    assertNotNull(get.outcome.replay());
  }

  @Test
  void aHotReadOnAConnectionThatWouldNotSendItIsSentAsAMissAndOnlyHotReadsAskTheAdapter() {
    makeHot("hot");
    new Command("GET", "hot").dispatch(connection).answer("v1");
    List<Object> asked = new ArrayList<>();
    answerable =
        conn -> {
          asked.add(conn);
          return false;
        };
    new Command("GET", "cold").dispatch(connection).answer("c");
    new Command("SET", "other", "x").dispatch(connection).answer("OK");
    assertEquals(List.of(), asked, "a command that goes to Redis anyway pays nothing");
    List<Long> before = readsOf("hot");
    long cacheHits = cache.hits();
    Command read = new Command("GET", "hot").dispatch(connection);
    assertTrue(read.sent(), "the client fails it or waits for its reconnect, as without the agent");
    assertEquals(List.of(connection), asked);
    assertEquals(List.of(before.get(0), before.get(1) + 1), readsOf("hot"));
    assertEquals(cacheHits, cache.hits(), "not looked up, so no cache hit either");
    read.answer("v1");
    Command set = new Command("SET", "hot", "v2").dispatch(connection);
    assertSame(DispatchOutcome.SEND, set.outcome, "no report expected of a SET it may never write");
    assertEquals(List.of(connection, connection), asked);
    set.answer("OK");
    answerable = LocalAnswerCheck.ALWAYS;
    Command live = new Command("SET", "hot", "v3").dispatch(connection);
    assertSame(DispatchOutcome.SEND_REPORTING_SERVER, live.outcome);
    live.answer("OK");
  }

  @Test
  void aPubSubOrBatchCallIsNeverAnswered() {
    makeHot("hot");
    new Command("GET", "hot").dispatch(connection).answer("v1");
    answerable = LocalAnswerCheck.NEVER;
    assertTrue(new Command("GET", "hot").dispatch(connection).sent());
  }

  @Test
  void aParkedReadResumedAfterItsConnectionWentDownIsSentAndCountedAsAMiss() {
    makeHot("hot");
    Command set = new Command("SET", "hot", "v1").dispatch(connection);
    Command get = new Command("GET", "hot").dispatch(connection);
    assertTrue(get.parked());
    long hits = cache.hits();
    List<Long> before = readsOf("hot");
    answerable = LocalAnswerCheck.NEVER;
    assertEquals(List.of(get), set.answer("OK"));
    assertTrue(get.sent(), "the client fails it or holds it until it reconnects");
    assertEquals(hits, cache.hits());
    assertEquals(List.of(before.get(0), before.get(1) + 1), readsOf("hot"));
  }

  /** Hits and misses of the hot key {@code key} since it became hot. */
  private List<Long> readsOf(String key) {
    HotKeyReads reads = core.registry.reads(key);
    assertNotNull(reads, key + " has no read counters");
    return List.of(reads.hits(), reads.misses());
  }

  @Test
  void eachHotKeyCountsItsReadsOnceTheirOutcomeIsKnown() {
    makeHot("hot");
    assertEquals(List.of(0L, 0L), readsOf("hot"), "counted from the promotion on");
    Command fill = new Command("GET", "hot").dispatch(connection);
    Command waiting = new Command("GET", "hot").dispatch(connection);
    assertTrue(waiting.parked());
    assertEquals(List.of(0L, 1L), readsOf("hot"), "the fill, and nothing yet for the parked read");
    fill.answer("v1");
    assertEquals(List.of(1L, 1L), readsOf("hot"), "the parked read got the fill's answer");
    assertEquals("v1", new Command("GET", "hot").dispatch(connection).answered());
    // a SET's own thread parks its GET behind it, answered with the SET's value
    Command set = new Command("SET", "hot", "v2").dispatch(connection);
    Command behindSet = new Command("GET", "hot").dispatch(connection);
    set.answer("OK");
    assertEquals("v2", behindSet.answered());
    // parked behind a fill that fails: sent to Redis when handed back
    new Command("DEL", "hot").dispatch(connection).answer(null);
    Command failing = new Command("GET", "hot").dispatch(connection);
    Command sentLater = new Command("GET", "hot").dispatch(connection);
    assertTrue(sentLater.parked());
    failing.fail();
    assertTrue(sentLater.sent());
    assertEquals(List.of(3L, 3L), readsOf("hot"));
  }

  @Test
  void aHotKeyThatIsNeverServedCountsEveryReadAsAMiss() {
    core =
        new CoreFixture(
            0, new KeyFilter(List.of(Glob.parse("*")), List.of(Glob.parse("session:*"))), true);
    cache = core.cache;
    gateway = core.gateways.multiplexed();
    makeHot("session:1");
    for (int i = 0; i < 3; i++) {
      assertTrue(new Command("GET", "session:1").dispatch(connection).sent());
    }
    assertEquals(List.of(0L, 3L), readsOf("session:1"));
  }

  @Test
  void settlingTwiceHandsTheParkedReadsBackOnce() {
    ParkedReads parked = new ParkedReads();
    Object conn = new Object();
    Object command = new Object();
    assertTrue(parked.park(conn, command, new HotKeyReads[0]));
    List<Resumption> resumed = parked.settle("answer");
    assertEquals(1, resumed.size());
    assertEquals("answer", resumed.get(0).answer());
    assertSame(conn, resumed.get(0).connection());
    assertSame(command, resumed.get(0).command());
    assertTrue(parked.handBack(Integer.MAX_VALUE, mark -> "late").isEmpty());
    assertTrue(parked.settle("again").isEmpty());
    assertTrue(
        !parked.park(conn, command, new HotKeyReads[0]), "no read parks after the reply ended");
    assertTrue(new ParkedReads().settle("nothing parked").isEmpty());
  }
}
