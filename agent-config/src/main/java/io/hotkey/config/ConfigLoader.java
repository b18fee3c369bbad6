package io.hotkey.config;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Merges the sources (system properties, environment, agent arguments, the properties file,
 * defaults; highest first), reads every value and collects all errors and warnings on the way. One
 * instance serves one {@link HotkeyConfig#load} call.
 */
final class ConfigLoader {
  private static final String AGENT_ARGUMENT = "agent argument";

  private final List<String> errors = new ArrayList<>();
  private final List<String> warnings = new ArrayList<>();

  HotkeyConfig load(
      String agentArgs, Map<String, String> systemProperties, Map<String, String> environment)
      throws ConfigException {
    List<Setting> layers = new ArrayList<>();
    layers.addAll(fromSystemProperties(systemProperties));
    layers.addAll(fromEnvironment(environment));
    layers.addAll(fromAgentArguments(agentArgs));
    // the file's own location can only come from the sources above it
    Setting configFile = firstFor(ConfigKey.CONFIG, layers);
    if (configFile != null) {
      layers.addAll(fromFile(configFile));
    }

    Map<ConfigKey, Setting> effective = new EnumMap<>(ConfigKey.class);
    Map<ConfigKey, Object> values = new EnumMap<>(ConfigKey.class);
    for (ConfigKey key : ConfigKey.values()) {
      Setting given = firstFor(key, layers);
      Setting setting = given != null ? given : Setting.byDefault(key);
      effective.put(key, setting);
      try {
        values.put(key, key.parse(setting.value));
      } catch (InvalidValueException e) {
        errors.add(setting.error(e));
      }
    }
    checkCombinations(effective, values);
    if (!errors.isEmpty()) {
      throw new ConfigException(errors);
    }
    return new HotkeyConfig(values, effective, warnings);
  }

  /**
   * The highest source's setting of {@code key}, or null. Loops rather than streams and lambdas in
   * this class: it runs in {@code premain}, where each lambda's first use spins a class.
   */
  private static Setting firstFor(ConfigKey key, List<Setting> layers) {
    for (Setting setting : layers) {
      if (setting.key == key) {
        return setting;
      }
    }
    return null;
  }

  private List<Setting> fromSystemProperties(Map<String, String> properties) {
    List<Setting> settings = new ArrayList<>();
    // sorted so that warnings come out in a stable order
    for (Map.Entry<String, String> property : new TreeMap<>(properties).entrySet()) {
      if (property.getKey().startsWith(ConfigKey.PREFIX)) {
        addByKey(settings, property.getKey(), property.getValue(), "system property");
      }
    }
    return settings;
  }

  private List<Setting> fromEnvironment(Map<String, String> environment) {
    List<Setting> settings = new ArrayList<>();
    for (Map.Entry<String, String> variable : new TreeMap<>(environment).entrySet()) {
      String name = variable.getKey();
      if (!name.startsWith(ConfigKey.ENV_PREFIX)) {
        continue;
      }
      Optional<ConfigKey> key = ConfigKey.byEnvName(name);
      if (key.isPresent()) {
        settings.add(new Setting(key.get(), variable.getValue(), "environment variable " + name));
      } else {
        warnings.add("unknown environment variable " + name + suggestion(name, ConfigKey::envName));
      }
    }
    return settings;
  }

  private List<Setting> fromAgentArguments(String agentArgs) {
    List<Setting> settings = new ArrayList<>();
    try {
      for (Map.Entry<String, String> argument : AgentArguments.parse(agentArgs).entrySet()) {
        addByKey(settings, argument.getKey(), argument.getValue(), AGENT_ARGUMENT);
      }
    } catch (InvalidValueException e) {
      errors.add(AGENT_ARGUMENT + " " + e.getMessage());
    }
    return settings;
  }

  private List<Setting> fromFile(Setting configSetting) {
    Optional<Path> path;
    try {
      path = ValueParsers.path(configSetting.value);
    } catch (InvalidValueException e) {
      // reported with all other values once hotkey.config itself is read
      return List.of();
    }
    if (path.isEmpty()) {
      return List.of();
    }
    Properties properties = new Properties();
    // UTF-8 instead of the legacy ISO-8859-1 of Properties.load(InputStream); undecodable bytes
    // become U+FFFD
    try (Reader reader =
        new InputStreamReader(Files.newInputStream(path.get()), StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException | IllegalArgumentException e) {
      errors.add(
          configSetting.error(
              new InvalidValueException(
                  configSetting.value,
                  "cannot be read (" + e + "); expected the path of a readable .properties file")));
      return List.of();
    }
    List<Setting> settings = new ArrayList<>();
    String origin = "file " + path.get();
    new TreeMap<>(properties)
        .forEach((name, value) -> addByKey(settings, (String) name, (String) value, origin));
    return settings;
  }

  private void addByKey(List<Setting> settings, String name, String value, String origin) {
    Optional<ConfigKey> key = ConfigKey.byKey(name);
    if (key.isPresent()) {
      settings.add(new Setting(key.get(), value, origin));
    } else {
      warnings.add(
          "unknown key " + name + " (from " + origin + ")" + suggestion(name, ConfigKey::key));
    }
  }

  private static String suggestion(String name, Function<ConfigKey, String> form) {
    return NearestKey.find(name, form)
        .map(key -> "; did you mean " + form.apply(key) + "?")
        .orElse("");
  }

  /** Rules between keys; each is checked only when the keys involved were read successfully. */
  private void checkCombinations(Map<ConfigKey, Setting> effective, Map<ConfigKey, Object> values) {
    Long maxBytes = (Long) values.get(ConfigKey.CACHE_MAX_BYTES);
    Long maxEntryBytes = (Long) values.get(ConfigKey.CACHE_MAX_ENTRY_BYTES);
    if (maxBytes != null && maxEntryBytes != null && maxEntryBytes > maxBytes) {
      Setting entry = effective.get(ConfigKey.CACHE_MAX_ENTRY_BYTES);
      Setting total = effective.get(ConfigKey.CACHE_MAX_BYTES);
      errors.add(
          entry.error(
              new InvalidValueException(
                  entry.value,
                  "is larger than "
                      + total.key.key()
                      + " ("
                      + total.value
                      + " from "
                      + total.origin
                      + "); expected a size no larger than the whole cache")));
    }
    // a malformed URI was already reported; only a missing one is reported here
    if (values.get(ConfigKey.IDEMPOTENCY_STORE) == IdempotencyStore.REDIS
        && Optional.empty().equals(values.get(ConfigKey.IDEMPOTENCY_REDIS_URI))) {
      Setting uri = effective.get(ConfigKey.IDEMPOTENCY_REDIS_URI);
      Setting store = effective.get(ConfigKey.IDEMPOTENCY_STORE);
      errors.add(
          uri.error(
              new InvalidValueException(
                  uri.value,
                  "is required because "
                      + store.key.key()
                      + "="
                      + store.value
                      + " (from "
                      + store.origin
                      + "); "
                      + ValueParsers.REDIS_URI_EXPECTED)));
    }
    RouteTable tokenRoutes = (RouteTable) values.get(ConfigKey.IDEMPOTENCY_TOKEN_ROUTES);
    if (tokenRoutes != null
        && !tokenRoutes.patterns().isEmpty()
        && Optional.empty().equals(values.get(ConfigKey.IDEMPOTENCY_TOKEN_ENDPOINT))) {
      Setting routes = effective.get(ConfigKey.IDEMPOTENCY_TOKEN_ROUTES);
      errors.add(
          routes.error(
              new InvalidValueException(
                  routes.value,
                  "needs "
                      + ConfigKey.IDEMPOTENCY_TOKEN_ENDPOINT.key()
                      + ", where clients get their tokens; expected e.g. "
                      + ConfigKey.IDEMPOTENCY_TOKEN_ENDPOINT.key()
                      + "=POST /idempotency-tokens")));
    }
    Object endpoint = values.get(ConfigKey.IDEMPOTENCY_TOKEN_ENDPOINT);
    if (endpoint instanceof Optional && ((Optional<?>) endpoint).isPresent()) {
      RoutePattern tokenEndpoint = (RoutePattern) ((Optional<?>) endpoint).get();
      for (ConfigKey key :
          List.of(
              ConfigKey.IDEMPOTENCY_ROUTES,
              ConfigKey.IDEMPOTENCY_DEDUPE_ROUTES,
              ConfigKey.IDEMPOTENCY_TOKEN_ROUTES)) {
        RouteTable table = (RouteTable) values.get(key);
        RoutePattern taken =
            table == null ? null : table.match(tokenEndpoint.method(), tokenEndpoint.path());
        if (taken != null) {
          Setting setting = effective.get(ConfigKey.IDEMPOTENCY_TOKEN_ENDPOINT);
          errors.add(
              setting.error(
                  new InvalidValueException(
                      setting.value,
                      "collides with the route "
                          + taken
                          + " of "
                          + key.key()
                          + ": the agent answers the token endpoint itself, so that route's"
                          + " handler would never run; expected a path no configured route"
                          + " matches, e.g. POST /idempotency-tokens")));
        }
      }
    }
  }
}
