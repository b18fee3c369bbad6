package io.hotkey.demo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.demo.bench.CompareRuns.Side;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BaselineTest {

  private static final Path AGENT = Path.of("hotkey-agent.jar");

  @Test
  void withoutABaselineAgentTheBaselineRunsWithoutTheAgent() {
    assertEquals(Optional.empty(), Baseline.NO_AGENT.javaagent(Side.WITHOUT, AGENT));
    assertEquals(Optional.of(AGENT), Baseline.NO_AGENT.javaagent(Side.WITH, AGENT));
    assertEquals("without agent", Baseline.NO_AGENT.label(Side.WITHOUT));
    assertEquals("with/without", Baseline.NO_AGENT.ratio());
  }

  @Test
  void aBaselineAgentRunsTheJarWithItsPropertiesOnTheBaselineSideOnly() {
    Baseline ttl = Baseline.agentWith("hotkey.cache.invalidation=ttl,hotkey.cache.ttl=1s");

    assertEquals(Optional.of(AGENT), ttl.javaagent(Side.WITHOUT, AGENT));
    assertEquals(
        List.of("hotkey.cache.invalidation=ttl", "hotkey.cache.ttl=1s"),
        ttl.properties(Side.WITHOUT));
    assertEquals(List.of(), ttl.properties(Side.WITH));
    assertEquals(
        "agent hotkey.cache.invalidation=ttl,hotkey.cache.ttl=1s", ttl.label(Side.WITHOUT));
    assertEquals("with/baseline", ttl.ratio());
  }

  @Test
  void aBaselineItemThatIsNotAHotkeyPropertyIsRefused() {
    IllegalArgumentException refused =
        assertThrows(IllegalArgumentException.class, () -> Baseline.agentWith("cache.ttl=1s"));
    assertTrue(refused.getMessage().contains("cache.ttl=1s"), refused.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Baseline.agentWith("hotkey.cache.ttl"));
  }
}
