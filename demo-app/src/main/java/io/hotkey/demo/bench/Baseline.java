package io.hotkey.demo.bench;

import io.hotkey.demo.bench.CompareRuns.Side;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What the agent is compared with: no agent ({@link #NO_AGENT}), or the same agent with other
 * properties.
 */
record Baseline(Optional<List<String>> agentProperties) {

  static final Baseline NO_AGENT = new Baseline(Optional.empty());

  /**
   * @throws IllegalArgumentException unless every comma-separated item is {@code hotkey.name=value}
   */
  static Baseline agentWith(String properties) {
    List<String> items = List.of(properties.split(","));
    for (String item : items) {
      if (!item.startsWith("hotkey.") || item.indexOf('=') < 0) {
        throw new IllegalArgumentException(
            "--baseline-agent needs hotkey.name=value items separated by commas, got " + item);
      }
    }
    return new Baseline(Optional.of(items));
  }

  String label(Side side) {
    if (side == Side.WITH) {
      return "with agent";
    }
    return agentProperties.map(items -> "agent " + String.join(",", items)).orElse("without agent");
  }

  Optional<Path> javaagent(Side side, Path agent) {
    return side == Side.WITH || agentProperties.isPresent() ? Optional.of(agent) : Optional.empty();
  }

  /** How the printed ratios name the two sides. */
  String ratio() {
    return agentProperties.isPresent() ? "with/baseline" : "with/without";
  }

  List<String> properties(Side side) {
    return side == Side.WITH ? List.of() : agentProperties.orElse(List.of());
  }
}
