package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.LettuceScenarioResults;
import org.junit.jupiter.api.Test;

/**
 * Lettuce 5.3 (the last 5.x line). The agent's Lettuce hooks are gated on {@code
 * io.lettuce.core.protocol.ProtocolVersion} (6.0+), so on 5.x it instruments no Lettuce class: it
 * is active, but sees, counts, detects and serves nothing, and the application runs exactly as
 * without it. The same workload on Lettuce 7 is the control: there it is instrumented, detected and
 * served, so the 5.x result is the missing hook, not a workload too cold to matter.
 */
class Lettuce5IT extends RedisTestBase {
  /**
   * Rounds of 8 reads (4 GETs, 1 HGETALL, 3 LRANGEs) of the same keys: far above the 200/s
   * threshold.
   */
  static final int N = 1500;

  static final String FROM = "compat";
  static final String TO = "compat-done";

  private static ChildRun compat(AgentJvm jvm, Snapshots snaps) {
    ChildRun c =
        jvm.args("--scenario", "compat", "--redis", redis.address(), "--n", Integer.toString(N))
            .run(snaps);
    LettuceIT.ran(c);
    Check.all(
        c,
        "the application's own checks",
        () ->
            assertEquals(
                0,
                c.result(LettuceScenarioResults.COMPAT_MISMATCHES),
                () ->
                    "values differ from Redis' or a write was not seen: "
                        + c.result(LettuceScenarioResults.COMPAT_EXAMPLES)),
        () ->
            assertEquals(
                0,
                c.result(LettuceScenarioResults.COMPAT_SHARED_OBJECTS),
                () -> "a result object was shared"));
    return c;
  }

  @Test
  void lettuce5RunsUnchangedAndIsNotInstrumented() {
    Snapshots withAgent = new Snapshots(redis::stats);
    ChildRun c =
        compat(
            AgentJvm.lettuceApp(Clients.LETTUCE_5).hotkeyTestDefaults().name("lettuce5-agent"),
            withAgent);
    Snapshots withoutAgent = new Snapshots(redis::stats);
    compat(
        AgentJvm.lettuceApp(Clients.LETTUCE_5).withoutAgent().name("lettuce5-no-agent"),
        withoutAgent);
    long reads = c.result(LettuceScenarioResults.COMPAT_READS);
    long reached = withAgent.calls(LettuceIT.READS, FROM, TO);
    CommandStats agent = withAgent.delta(FROM, TO);
    CommandStats plain = withoutAgent.delta(FROM, TO);
    System.out.println(
        "[it] lettuce "
            + Clients.LETTUCE_5
            + ": "
            + reached
            + " of "
            + reads
            + " reads reached Redis; commands Redis saw with the agent "
            + agent
            + ", without "
            + plain
            + "; jmx Commands="
            + c.result(LettuceScenarioResults.COMPAT_JMX.commands())
            + " HotKeyCount="
            + c.result(LettuceScenarioResults.COMPAT_JMX.hotKeyCount()));
    Check.all(
        c,
        "lettuce 5 with the agent",
        () -> assertTrue(c.agentActiveLine(), () -> "no active line"),
        () ->
            assertFalse(
                c.stderrMatches("^\\[hotkey\\] instrumented io\\.lettuce\\."),
                () -> "a Lettuce 5 class was instrumented"),
        () ->
            assertFalse(
                c.stderrMatches("^\\[hotkey\\] hot key promoted"), () -> "a key was promoted"),
        () -> assertFalse(c.stderrContains("internal error"), () -> "an internal error line"),
        () ->
            assertTrue(
                c.result(LettuceScenarioResults.COMPAT_JMX.registered()),
                () -> "no MBean: agent not active"),
        () ->
            assertEquals(
                0,
                c.result(LettuceScenarioResults.COMPAT_JMX.commands()),
                () -> "Lettuce 5 commands were counted"),
        () ->
            assertEquals(
                0, c.result(LettuceScenarioResults.COMPAT_JMX.hotKeyCount()), () -> "hot keys"),
        () ->
            assertEquals(
                0, c.result(LettuceScenarioResults.COMPAT_JMX.cacheHits()), () -> "cache hits"),
        () ->
            assertEquals(
                0, c.result(LettuceScenarioResults.COMPAT_JMX.agentErrors()), () -> "agent errors"),
        () ->
            assertEquals(
                reads, reached, () -> "every read must reach Redis: " + reached + " of " + reads),
        () ->
            assertEquals(
                plain.asMap(),
                agent.asMap(),
                () -> "Redis saw other commands with the agent than without it"));
  }

  @Test
  void theSameWorkloadIsServedOnLettuce7() {
    Snapshots snaps = new Snapshots(redis::stats);
    ChildRun c =
        compat(
            AgentJvm.lettuceApp(Clients.LETTUCE_7).hotkeyTestDefaults().name("lettuce5-control-7"),
            snaps);
    long reads = c.result(LettuceScenarioResults.COMPAT_READS);
    long reached = snaps.calls(LettuceIT.READS, FROM, TO);
    System.out.println(
        "[it] lettuce "
            + Clients.LETTUCE_7
            + " (control): "
            + reached
            + " of "
            + reads
            + " reads reached Redis; jmx Commands="
            + c.result(LettuceScenarioResults.COMPAT_JMX.commands())
            + " CacheHits="
            + c.result(LettuceScenarioResults.COMPAT_JMX.cacheHits()));
    Check.all(
        c,
        "the same workload on lettuce 7",
        () ->
            assertTrue(
                c.stderrContains("[hotkey] instrumented io.lettuce.core.RedisChannelHandler"),
                () -> "RedisChannelHandler not instrumented"),
        () -> assertTrue(c.promoted("lt:str") && c.promoted("lt:json"), () -> "keys not promoted"),
        () ->
            assertTrue(
                c.result(LettuceScenarioResults.COMPAT_JMX.commands()) >= reads,
                () -> "commands not counted"),
        () ->
            assertTrue(
                reached < reads / 2, () -> reached + " of " + reads + " reads reached Redis"));
  }
}
