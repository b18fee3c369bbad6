package io.hotkey.config;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * A Redis-style glob ({@code *}, {@code ?}, {@code [abc]}, {@code [^a]}, {@code [a-z]}, backslash
 * escape), compiled once into one test per character. Matching is linear in the text per star (no
 * regex backtracking), so hostile patterns such as {@code a*a*a*a*b} cannot stall a Redis call.
 */
public final class Glob {
  static final String EXPECTED =
      "expected a Redis glob: * for any characters, ? for one character, "
          + "[abc], [^a] or [a-z] for a set, \\ to escape, e.g. user:*";

  // sentinels compared by identity: a star is the only token that consumes a variable number of
  // characters
  @SuppressWarnings("UnnecessaryLambda") // markers: the matcher tells them apart by identity
  private static final IntPredicate ANY_SEQUENCE = c -> true;

  @SuppressWarnings("UnnecessaryLambda")
  private static final IntPredicate ANY_CHAR = c -> true;

  private final String pattern;
  private final IntPredicate[] tokens;

  private Glob(String pattern, IntPredicate[] tokens) {
    this.pattern = pattern;
    this.tokens = tokens;
  }

  /**
   * Parses a Redis glob ({@code *}, {@code ?}, {@code [...]}, backslash escapes).
   *
   * @throws InvalidValueException for an unterminated or empty {@code [...]} set or a trailing
   *     backslash
   */
  public static Glob parse(String pattern) {
    List<IntPredicate> tokens = new ArrayList<>();
    int i = 0;
    while (i < pattern.length()) {
      char c = pattern.charAt(i++);
      if (c == '*') {
        // consecutive stars match the same as one and would only add work
        if (tokens.isEmpty() || tokens.get(tokens.size() - 1) != ANY_SEQUENCE) {
          tokens.add(ANY_SEQUENCE);
        }
      } else if (c == '?') {
        tokens.add(ANY_CHAR);
      } else if (c == '[') {
        i = parseSet(pattern, i, tokens);
      } else {
        if (c == '\\') {
          requireMore(pattern, i);
          c = pattern.charAt(i++);
        }
        char literal = c;
        tokens.add(x -> x == literal);
      }
    }
    return new Glob(pattern, tokens.toArray(new IntPredicate[0]));
  }

  /** Parses comma-separated globs; blank text is an empty list. */
  public static List<Glob> parseList(String text) {
    List<Glob> globs = new ArrayList<>();
    for (String entry :
        CommaList.split(text, "expected comma-separated globs, e.g. user:*,item:*")) {
      globs.add(parse(entry));
    }
    return List.copyOf(globs);
  }

  /** Parses the set after its {@code [}; returns the index after its {@code ]}. */
  private static int parseSet(String pattern, int start, List<IntPredicate> tokens) {
    int i = start;
    boolean negated = i < pattern.length() && pattern.charAt(i) == '^';
    if (negated) {
      i++;
    }
    StringBuilder lows = new StringBuilder();
    StringBuilder highs = new StringBuilder();
    while (true) {
      if (i >= pattern.length()) {
        throw new InvalidValueException(pattern, "has a [ without a closing ]; " + EXPECTED);
      }
      char c = pattern.charAt(i++);
      if (c == ']') {
        break;
      }
      if (c == '\\') {
        requireMore(pattern, i);
        c = pattern.charAt(i++);
      }
      char high = c;
      // a '-' right before ']' is a literal dash, as in Redis
      if (i + 1 < pattern.length() && pattern.charAt(i) == '-' && pattern.charAt(i + 1) != ']') {
        i++;
        if (pattern.charAt(i) == '\\') {
          requireMore(pattern, ++i);
        }
        high = pattern.charAt(i++);
      }
      // Redis accepts reversed ranges such as [z-a]
      lows.append((char) Math.min(c, high));
      highs.append((char) Math.max(c, high));
    }
    if (lows.length() == 0) {
      throw new InvalidValueException(
          pattern, "has an empty [] set, which matches nothing; " + EXPECTED);
    }
    String lo = lows.toString();
    String hi = highs.toString();
    tokens.add(x -> inRanges(x, lo, hi) != negated);
    return i;
  }

  private static boolean inRanges(int c, String lows, String highs) {
    for (int r = 0; r < lows.length(); r++) {
      if (c >= lows.charAt(r) && c <= highs.charAt(r)) {
        return true;
      }
    }
    return false;
  }

  private static void requireMore(String pattern, int i) {
    if (i >= pattern.length()) {
      throw new InvalidValueException(pattern, "ends with a lone backslash; " + EXPECTED);
    }
  }

  /** Whether the whole text matches the pattern. */
  public boolean matches(String text) {
    int t = 0;
    int p = 0;
    // resume point of the most recent star; earlier stars never need revisiting because the
    // last star can absorb anything they would have
    int starP = -1;
    int starT = 0;
    while (t < text.length()) {
      if (p < tokens.length && tokens[p] == ANY_SEQUENCE) {
        starP = ++p;
        starT = t;
      } else if (p < tokens.length && tokens[p].test(text.charAt(t))) {
        p++;
        t++;
      } else if (starP >= 0) {
        p = starP;
        t = ++starT;
      } else {
        return false;
      }
    }
    while (p < tokens.length && tokens[p] == ANY_SEQUENCE) {
      p++;
    }
    return p == tokens.length;
  }

  /** The pattern as written. */
  @Override
  public String toString() {
    return pattern;
  }
}
