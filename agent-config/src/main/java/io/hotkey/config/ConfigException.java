package io.hotkey.config;

import java.util.List;

/** Every problem found in one configuration, reported together so a user can fix them in one go. */
public final class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  private final List<String> errors;

  ConfigException(List<String> errors) {
    super(String.join("\n", errors));
    this.errors = List.copyOf(errors);
  }

  /** One line per problem, in key order. */
  public List<String> errors() {
    return errors;
  }
}
