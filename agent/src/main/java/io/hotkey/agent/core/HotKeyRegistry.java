package io.hotkey.agent.core;

import io.hotkey.agent.detect.HotKeyListener;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.detect.KeyRate;
import io.hotkey.config.KeyFilter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The agent's view of which keys are hot right now. It hears the detector's promotions and
 * demotions (on the detector's tick thread), logs them, tells metric exporters, and publishes the
 * subset whose reads may be served locally: keys accepted by {@code hotkey.cache.include/exclude},
 * when the cache is on.
 */
public final class HotKeyRegistry implements HotKeyListener {
  /** Told about every promotion and demotion, e.g. to add and remove per-key meters. */
  public interface Observer {
    void onPromoted(KeyRate key);

    void onDemoted(KeyRate key);
  }

  private final KeyFilter cacheFilter;
  private final boolean cacheEnabled;
  private final Map<String, KeyRate> hot = new LinkedHashMap<>();
  private final List<Observer> observers = new CopyOnWriteArrayList<>();
  private volatile ServableKeys servable = ServableKeys.EMPTY;
  private volatile List<String> hotKeyNames = List.of();

  public HotKeyRegistry(boolean cacheEnabled, KeyFilter cacheFilter) {
    this.cacheEnabled = cacheEnabled;
    this.cacheFilter = cacheFilter;
  }

  public void addObserver(Observer observer) {
    observers.add(observer);
  }

  boolean isServable(byte[] key, int hash) {
    return servable.contains(key, hash);
  }

  /** Printable names of the keys hot right now, as the logs show them. */
  public List<String> hotKeyNames() {
    return hotKeyNames;
  }

  @Override
  public synchronized void onPromoted(KeyRate key) {
    String name = AgentLog.printable(key.key());
    hot.put(name, key);
    AgentLog.info(
        "hot key promoted: key=\""
            + name
            + "\" rate="
            + Math.round(key.ratePerSecond())
            + "/s reads="
            + Math.round(100 * key.readShare())
            + "%");
    publish();
    for (Observer observer : observers) {
      observer.onPromoted(key);
    }
  }

  @Override
  public synchronized void onDemoted(KeyRate key) {
    String name = AgentLog.printable(key.key());
    hot.remove(name);
    AgentLog.info(
        "hot key demoted: key=\"" + name + "\" rate=" + Math.round(key.ratePerSecond()) + "/s");
    publish();
    for (Observer observer : observers) {
      observer.onDemoted(key);
    }
  }

  private void publish() {
    List<byte[]> cacheable = new ArrayList<>();
    for (KeyRate key : hot.values()) {
      // a truncated key cannot be matched exactly, so it is reported but never served
      if (cacheEnabled
          && !key.truncated()
          && cacheFilter.accepts(new String(key.key(), StandardCharsets.UTF_8))) {
        cacheable.add(key.key());
      }
    }
    servable = ServableKeys.of(cacheable, KeyHashes::hash);
    hotKeyNames = List.copyOf(hot.keySet());
  }
}
