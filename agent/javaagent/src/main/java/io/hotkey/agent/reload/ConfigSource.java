package io.hotkey.agent.reload;

import io.hotkey.config.ConfigException;
import io.hotkey.config.HotkeyConfig;

/** Reads the configuration again from the sources the agent started with. */
@FunctionalInterface
public interface ConfigSource {
  HotkeyConfig load() throws ConfigException;
}
