package io.hotkey.agent.cli;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** One object of the agent's report, read member by member; a missing member reads as absent. */
final class ReportDocument {
  private final Map<?, ?> members;

  private ReportDocument(Map<?, ?> members) {
    this.members = members;
  }

  static ReportDocument parse(String json) {
    Object root = Json.parse(json);
    if (!(root instanceof Map)) {
      throw new IllegalArgumentException("the report is not a JSON object");
    }
    return new ReportDocument((Map<?, ?>) root);
  }

  ReportDocument object(String name) {
    Object value = members.get(name);
    return new ReportDocument(value instanceof Map ? (Map<?, ?>) value : Map.of());
  }

  List<ReportDocument> objects(String name) {
    Object value = members.get(name);
    if (!(value instanceof List)) {
      return List.of();
    }
    return ((List<?>) value)
        .stream()
            .filter(Map.class::isInstance)
            .map(item -> new ReportDocument((Map<?, ?>) item))
            .collect(Collectors.toList());
  }

  /** The strings of an array member; empty when it is absent. */
  List<String> texts(String name) {
    Object value = members.get(name);
    if (!(value instanceof List)) {
      return List.of();
    }
    return ((List<?>) value).stream().map(String::valueOf).collect(Collectors.toList());
  }

  /** Member names in document order. */
  List<String> names() {
    return members.keySet().stream().map(String::valueOf).collect(Collectors.toList());
  }

  String text(String name) {
    Object value = members.get(name);
    return value == null ? "" : String.valueOf(value);
  }

  boolean flag(String name) {
    return Boolean.TRUE.equals(members.get(name));
  }

  /** Whether the member is a number (per-second figures are null until the agent has sampled). */
  boolean hasNumber(String name) {
    return members.get(name) instanceof Double;
  }

  /**
   * The member's number; 0 when it is absent or null (check {@link #hasNumber} where it matters).
   */
  double number(String name) {
    Object value = members.get(name);
    return value instanceof Double ? (Double) value : 0;
  }
}
