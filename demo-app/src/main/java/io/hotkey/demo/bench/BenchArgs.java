package io.hotkey.demo.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A benchmark's command line: {@code --name value} pairs, each name one the benchmark knows. */
final class BenchArgs {

  private final Map<String, String> values;

  private BenchArgs(Map<String, String> values) {
    this.values = values;
  }

  /**
   * @throws IllegalArgumentException for a name not in {@code known} or a name without a value
   */
  static BenchArgs parse(String[] args, String... known) {
    List<String> names = List.of(known);
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      if (!names.contains(args[i])) {
        throw new IllegalArgumentException("unknown argument " + args[i]);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(args[i] + " needs a value");
      }
      values.put(args[i], args[i + 1]);
    }
    return new BenchArgs(values);
  }

  Optional<String> text(String name) {
    return Optional.ofNullable(values.get(name));
  }

  /** The option's value, or {@code fallback} when it is not given. */
  int wholeNumber(String name, int fallback, int minimum) {
    String value = values.get(name);
    if (value == null) {
      return fallback;
    }
    try {
      int number = Integer.parseInt(value);
      if (number >= minimum) {
        return number;
      }
    } catch (NumberFormatException e) {
      // reported below like an out-of-range number
    }
    throw new IllegalArgumentException(
        name + " needs a whole number >= " + minimum + ", got " + value);
  }
}
