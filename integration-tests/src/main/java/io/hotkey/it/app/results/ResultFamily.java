package io.hotkey.it.app.results;

import java.util.Optional;
import java.util.function.Function;

/**
 * Results named {@code <prefix><member><suffix>}, one for each member an app decides on at run time
 * (the cases of a scenario), so that a test can read them all without repeating the members. A
 * member holds no dot, which keeps {@code case.x} apart from {@code case.x.servedLocally}.
 */
public final class ResultFamily<T> {
  private final String prefix;
  private final String suffix;
  private final Function<String, ResultName<T>> kind;

  /**
   * @param kind one of {@link ResultName}'s factories, e.g. {@code ResultName::flag}
   */
  public ResultFamily(String prefix, String suffix, Function<String, ResultName<T>> kind) {
    this.prefix = prefix;
    this.suffix = suffix;
    this.kind = kind;
  }

  /** The result of {@code member}. */
  public ResultName<T> of(String member) {
    if (member.isEmpty() || member.contains(".")) {
      throw new IllegalArgumentException("not a member of " + this + ": '" + member + "'");
    }
    return kind.apply(prefix + member + suffix);
  }

  /** The member whose result {@code name} is, if it is one of this family. */
  public Optional<String> memberOf(String name) {
    if (!name.startsWith(prefix) || !name.endsWith(suffix)) {
      return Optional.empty();
    }
    String member = name.substring(prefix.length(), name.length() - suffix.length());
    return member.isEmpty() || member.contains(".") ? Optional.empty() : Optional.of(member);
  }

  @Override
  public String toString() {
    return prefix + "<member>" + suffix;
  }
}
