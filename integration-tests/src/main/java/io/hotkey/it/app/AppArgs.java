package io.hotkey.it.app;

import java.util.Map;

/**
 * A scenario app's {@code --name value} arguments, with the ones most apps take ({@code --redis
 * host:port}, {@code --key}, {@code --client}, {@code --seconds}) read in one place.
 */
public final class AppArgs {
  private final Map<String, String> values;

  private AppArgs(Map<String, String> values) {
    this.values = values;
  }

  public static AppArgs parse(String[] args) {
    return new AppArgs(Child.parseArgs(args));
  }

  /** The host of {@code --redis host:port}. */
  public String host() {
    return get("redis").split(":")[0];
  }

  /** The port of {@code --redis host:port}. */
  public int port() {
    return Integer.parseInt(get("redis").split(":")[1]);
  }

  public String key() {
    return get("key");
  }

  /** {@code --client lettuce}; any other value, or none, is Jedis. */
  public boolean lettuce() {
    return "lettuce".equals(values.get("client"));
  }

  public long seconds() {
    return number("seconds");
  }

  /** The value of {@code --name}; fails naming it when it was not given. */
  public String get(String name) {
    String value = values.get(name);
    if (value == null) {
      throw new IllegalArgumentException("missing argument --" + name);
    }
    return value;
  }

  public String get(String name, String otherwise) {
    return values.getOrDefault(name, otherwise);
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }

  public long number(String name) {
    return Long.parseLong(get(name));
  }

  public long number(String name, long otherwise) {
    return has(name) ? number(name) : otherwise;
  }

  public boolean flag(String name) {
    return Boolean.parseBoolean(values.get(name));
  }
}
