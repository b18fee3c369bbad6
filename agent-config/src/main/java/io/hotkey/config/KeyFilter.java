package io.hotkey.config;

import java.util.List;

/**
 * Decides which Redis keys may be cached locally: those matching an include glob and no exclude
 * glob.
 */
public final class KeyFilter {
  private final List<Glob> include;
  private final List<Glob> exclude;

  public KeyFilter(List<Glob> include, List<Glob> exclude) {
    this.include = List.copyOf(include);
    this.exclude = List.copyOf(exclude);
  }

  public boolean accepts(String key) {
    return anyMatches(include, key) && !anyMatches(exclude, key);
  }

  private static boolean anyMatches(List<Glob> globs, String key) {
    for (Glob glob : globs) {
      if (glob.matches(key)) {
        return true;
      }
    }
    return false;
  }
}
