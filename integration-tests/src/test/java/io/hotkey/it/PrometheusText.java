package io.hotkey.it;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A reader of the Prometheus text exposition format 0.0.4 that rejects any line the format does not
 * allow: HELP and TYPE comments (one TYPE per family, before its samples), and samples {@code
 * name{label="value",...} value [timestamp]} with escaped label values.
 */
final class PrometheusText {
  private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  private static final String LABEL_NAME = "[a-zA-Z_][a-zA-Z0-9_]*";
  private static final String LABEL_VALUE = "\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\"";
  private static final String LABEL = LABEL_NAME + "=" + LABEL_VALUE;
  private static final String VALUE =
      "(?:[+-]?(?:\\d+\\.?\\d*(?:[eE][+-]?\\d+)?|\\.\\d+(?:[eE][+-]?\\d+)?)|NaN|[+-]Inf)";
  private static final Pattern HELP =
      Pattern.compile("# HELP (" + NAME + ") (?:[^\\\\\\n]|\\\\[\\\\n])*");
  private static final Pattern TYPE =
      Pattern.compile("# TYPE (" + NAME + ") (counter|gauge|histogram|summary|untyped)");
  private static final Pattern SAMPLE =
      Pattern.compile(
          "("
              + NAME
              + ")(\\{(?:"
              + LABEL
              + "(?:,"
              + LABEL
              + ")*,?)?\\})? ("
              + VALUE
              + ")(?: -?\\d+)?");
  private static final Pattern ONE_LABEL =
      Pattern.compile("(" + LABEL_NAME + ")=(" + LABEL_VALUE + ")");

  /** Series (name plus labels as printed) and their values. */
  private final Map<String, Double> samples = new LinkedHashMap<>();

  private PrometheusText() {}

  /**
   * @throws AssertionError naming the first line that is not valid
   */
  static PrometheusText parse(String text) {
    PrometheusText parsed = new PrometheusText();
    Set<String> typed = new HashSet<>();
    Map<String, String> types = new HashMap<>();
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    if (!lines.get(lines.size() - 1).isEmpty()) {
      throw new AssertionError("the exposition does not end with a line feed");
    }
    lines.remove(lines.size() - 1);
    int number = 0;
    for (String line : lines) {
      number++;
      if (line.isEmpty() || HELP.matcher(line).matches()) {
        continue;
      }
      Matcher type = TYPE.matcher(line);
      if (type.matches()) {
        if (!typed.add(type.group(1))) {
          throw new AssertionError("line " + number + ": second TYPE for " + type.group(1));
        }
        types.put(type.group(1), type.group(2));
        continue;
      }
      if (line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches()) {
        throw new AssertionError("line " + number + " is not valid exposition text: " + line);
      }
      String family = m.group(1);
      if (!types.containsKey(family) && !types.containsKey(family.replaceAll("_total$", ""))) {
        throw new AssertionError("line " + number + ": sample before its TYPE: " + line);
      }
      parsed.samples.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), number(m.group(3)));
    }
    return parsed;
  }

  private static double number(String text) {
    return switch (text) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      default -> Double.parseDouble(text);
    };
  }

  /** The value of a series, e.g. {@code hotkey_commands_total{kind="read"}}; null when absent. */
  Double value(String series) {
    return samples.get(series);
  }

  /** Every series of metric {@code name}, with its label values unescaped, e.g. {key=a"b}. */
  List<Map<String, String>> labelsOf(String name) {
    List<Map<String, String>> all = new ArrayList<>();
    for (String series : samples.keySet()) {
      if (series.equals(name) || series.startsWith(name + "{")) {
        Map<String, String> labels = new LinkedHashMap<>();
        Matcher m = ONE_LABEL.matcher(series.substring(name.length()));
        while (m.find()) {
          labels.put(m.group(1), unescape(m.group(2)));
        }
        all.add(labels);
      }
    }
    return all;
  }

  private static String unescape(String quoted) {
    StringBuilder out = new StringBuilder();
    for (int i = 1; i < quoted.length() - 1; i++) {
      char c = quoted.charAt(i);
      if (c == '\\') {
        char next = quoted.charAt(++i);
        out.append(next == 'n' ? '\n' : next);
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  Set<String> series() {
    return samples.keySet();
  }
}
