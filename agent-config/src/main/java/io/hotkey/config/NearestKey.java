package io.hotkey.config;

import java.util.Optional;
import java.util.function.Function;

/** Finds the known key a misspelt name was most likely meant to be. */
final class NearestKey {
  private NearestKey() {}

  /**
   * Returns the closest key, unless even that one is too different to be a plausible typo.
   *
   * @param form how keys are spelt where the name came from (property or environment form)
   */
  static Optional<ConfigKey> find(String name, Function<ConfigKey, String> form) {
    ConfigKey best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (ConfigKey key : ConfigKey.values()) {
      int distance = levenshtein(name, form.apply(key));
      if (distance < bestDistance) {
        best = key;
        bestDistance = distance;
      }
    }
    return bestDistance <= Math.max(2, name.length() / 3)
        ? Optional.ofNullable(best)
        : Optional.empty();
  }

  static int levenshtein(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
