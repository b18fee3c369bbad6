package io.hotkey.demo.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/** The agent jar the reactor built, for the *IT tests that run child JVMs with it. */
final class AgentJar {

  private AgentJar() {}

  /**
   * Its path ({@code bench.agentJar}, set by failsafe); fails the test when it has not been built.
   */
  static Path built() {
    Path agent = Path.of(System.getProperty("bench.agentJar", "../agent/target/hotkey-agent.jar"));
    assertTrue(
        Files.isRegularFile(agent),
        "no agent jar at "
            + agent.toAbsolutePath()
            + "; build it first (mvn -B verify from the root builds it before this test)");
    return agent;
  }
}
