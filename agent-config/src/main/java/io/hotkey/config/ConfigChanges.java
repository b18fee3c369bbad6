package io.hotkey.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a reload of the properties file changes: the keys whose effective values differ, which of
 * them a running agent may apply, and the configuration it runs with once it applied some.
 */
public final class ConfigChanges {
  /**
   * Keys a running agent may apply without a restart. The agent can still refuse one (e.g. a top-k
   * beyond what its detector was sized for); every other key needs a restart.
   */
  public static final Set<ConfigKey> LIVE =
      EnumSet.of(
          ConfigKey.DETECT_THRESHOLD,
          ConfigKey.DETECT_WRITE_THRESHOLD,
          ConfigKey.DETECT_FLEET_THRESHOLD,
          ConfigKey.DETECT_TOP_K,
          ConfigKey.DETECT_COOL_DOWN,
          ConfigKey.CACHE_TTL,
          ConfigKey.CACHE_MAX_BYTES,
          ConfigKey.CACHE_INCLUDE,
          ConfigKey.CACHE_EXCLUDE,
          ConfigKey.REPORT_INTERVAL,
          ConfigKey.IDEMPOTENCY_ROUTES,
          ConfigKey.IDEMPOTENCY_REQUIRE_KEY);

  private ConfigChanges() {}

  /** The keys whose effective values differ, in {@link ConfigKey} order, passwords hidden. */
  public static List<ConfigChange> between(HotkeyConfig before, HotkeyConfig after) {
    List<ConfigChange> changes = new ArrayList<>();
    for (ConfigKey key : ConfigKey.values()) {
      String old = before.setting(key).value.trim();
      String now = after.setting(key).value.trim();
      if (!old.equals(now)) {
        changes.add(new ConfigChange(key, shown(before, key), shown(after, key)));
      }
    }
    return changes;
  }

  /**
   * {@code running} with the values {@code loaded} has for {@code applied}: what the agent runs
   * with once it applied those keys and kept the rest.
   */
  public static HotkeyConfig merge(
      HotkeyConfig running, HotkeyConfig loaded, Collection<ConfigKey> applied) {
    Map<ConfigKey, Object> values = new EnumMap<>(ConfigKey.class);
    Map<ConfigKey, Setting> settings = new EnumMap<>(ConfigKey.class);
    for (ConfigKey key : ConfigKey.values()) {
      HotkeyConfig source = applied.contains(key) ? loaded : running;
      values.put(key, source.rawValue(key));
      settings.put(key, source.setting(key));
    }
    return new HotkeyConfig(values, settings, loaded.warnings());
  }

  private static String shown(HotkeyConfig config, ConfigKey key) {
    for (ConfigEntry entry : config.entries()) {
      if (entry.key().equals(key.key())) {
        return entry.value().isEmpty() ? "\"\"" : entry.value();
      }
    }
    throw new IllegalStateException("no entry for " + key.key());
  }
}
