package io.hotkey.agent.reload;

import io.hotkey.agent.core.AgentLog;
import io.hotkey.config.ConfigChange;
import io.hotkey.config.ConfigChanges;
import io.hotkey.config.ConfigException;
import io.hotkey.config.HotkeyConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;

/**
 * Hot reload of the properties file named by {@code config=} ({@code hotkey.config}): polled once a
 * second on the agent's scheduler, its content compared byte for byte with the last one read (so
 * neither a coarse file clock nor an editor's rename can hide an edit). A changed file is read with
 * every other source as at start; an invalid one is refused, the running configuration kept and the
 * error logged as at start. The keys that differ are applied by {@link LiveReconfiguration} and
 * logged as a diff; those it cannot apply are named with the advice to restart.
 */
public final class ConfigReloader {
  private final Path file;
  private final ConfigSource source;
  private final LiveReconfiguration live;
  private HotkeyConfig running;
  private byte[] lastContent;
  private boolean read;

  public ConfigReloader(
      Path file, ConfigSource source, HotkeyConfig running, LiveReconfiguration live) {
    this.file = file;
    this.source = source;
    this.running = running;
    this.live = live;
  }

  /** One poll: reloads when the file's content changed since the last poll. */
  public void poll() {
    byte[] content = contentOrNull();
    if (read && Arrays.equals(content, lastContent)) {
      return;
    }
    read = true;
    lastContent = content;
    HotkeyConfig loaded;
    try {
      loaded = source.load();
    } catch (ConfigException e) {
      AgentLog.problems(
          "configuration reload refused, running configuration kept:", e.getMessage());
      return;
    }
    for (String warning : loaded.warnings()) {
      if (!running.warnings().contains(warning)) {
        AgentLog.warn(warning);
      }
    }
    List<ConfigChange> changes = ConfigChanges.between(running, loaded);
    if (changes.isEmpty()) {
      return;
    }
    LiveReconfiguration.Outcome outcome = live.apply(running, loaded, changes);
    running = outcome.running();
    if (!outcome.applied().isEmpty()) {
      AgentLog.info("configuration reloaded: " + joined(outcome.applied()));
    }
    if (!outcome.needRestart().isEmpty()) {
      List<String> named = new ArrayList<>();
      for (LiveReconfiguration.Refusal refusal : outcome.needRestart()) {
        named.add(refusal.change() + " (" + refusal.reason() + ")");
      }
      AgentLog.warn(
          "configuration change not applied while the JVM runs: "
              + String.join(", ", named)
              + "; restart the JVM to apply it");
    }
  }

  /** The configuration the agent runs with now. */
  public HotkeyConfig running() {
    return running;
  }

  private byte[] contentOrNull() {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      // a missing or unreadable file is an edit too: the reload reports it as at start
      return null;
    }
  }

  private static String joined(List<ConfigChange> changes) {
    StringJoiner line = new StringJoiner(", ");
    for (ConfigChange change : changes) {
      line.add(change.toString());
    }
    return line.toString();
  }
}
