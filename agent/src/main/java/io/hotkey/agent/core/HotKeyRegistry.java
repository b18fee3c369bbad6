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
import java.util.function.Consumer;

/**
 * The agent's view of which keys are hot right now. It hears the detector's promotions and
 * demotions (on the detector's tick thread), logs them, tells metric exporters, and publishes the
 * subset whose reads may be served locally: keys accepted by {@code hotkey.cache.include/exclude},
 * when the cache is on, among those hot here or, by the fleet's shared aggregate, everywhere.
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
  private final List<Consumer<List<byte[]>>> servableListeners = new CopyOnWriteArrayList<>();
  private Map<String, FleetHotKey> fleetHot = Map.of();
  private volatile ServableKeys servable = ServableKeys.EMPTY;
  private volatile List<String> hotKeyNames = List.of();
  private volatile List<FleetHotKey> fleetHotKeys = List.of();

  /** A key hot across the fleet: the summed rate of every instance that reported it. */
  public static final class FleetHotKey {
    private final byte[] key;
    private final double fleetRatePerSecond;

    public FleetHotKey(byte[] key, double fleetRatePerSecond) {
      this.key = key;
      this.fleetRatePerSecond = fleetRatePerSecond;
    }

    public byte[] key() {
      return key;
    }

    public double fleetRatePerSecond() {
      return fleetRatePerSecond;
    }
  }

  public HotKeyRegistry(boolean cacheEnabled, KeyFilter cacheFilter) {
    this.cacheEnabled = cacheEnabled;
    this.cacheFilter = cacheFilter;
  }

  public void addObserver(Observer observer) {
    observers.add(observer);
  }

  /**
   * Told the keys that may be served locally (a new immutable list) on every change, e.g. to have
   * them tracked.
   */
  public void addServableListener(Consumer<List<byte[]>> listener) {
    servableListeners.add(listener);
  }

  boolean isServable(byte[] key, int hash) {
    return servable.contains(key, hash);
  }

  /** Printable names of the keys hot right now, as the logs show them. */
  public List<String> hotKeyNames() {
    return hotKeyNames;
  }

  /** The keys hot across the fleet now, as the shared aggregate last said (highest rate first). */
  public List<FleetHotKey> fleetHotKeys() {
    return fleetHotKeys;
  }

  /**
   * The fleet's hot keys as of its latest aggregate: a key that joins is promoted in every
   * instance, one that is no longer in it demoted (the aggregate keeps a key for the window after
   * it cooled, which is the fleet's cool-down).
   */
  public synchronized void onFleetHotKeys(List<FleetHotKey> keys) {
    Map<String, FleetHotKey> next = new LinkedHashMap<>();
    for (FleetHotKey key : keys) {
      next.put(AgentLog.printable(key.key()), key);
    }
    for (Map.Entry<String, FleetHotKey> entry : next.entrySet()) {
      if (!fleetHot.containsKey(entry.getKey())) {
        AgentLog.info(
            "fleet hot key promoted: key=\""
                + entry.getKey()
                + "\" fleet-rate="
                + Math.round(entry.getValue().fleetRatePerSecond())
                + "/s");
      }
    }
    for (String name : fleetHot.keySet()) {
      if (!next.containsKey(name)) {
        AgentLog.info("fleet hot key demoted: key=\"" + name + "\"");
      }
    }
    boolean changed = !next.keySet().equals(fleetHot.keySet());
    fleetHot = next;
    fleetHotKeys = List.copyOf(next.values());
    if (changed) {
      publish();
    }
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
    for (Map.Entry<String, FleetHotKey> entry : fleetHot.entrySet()) {
      byte[] key = entry.getValue().key();
      if (cacheEnabled
          && !hot.containsKey(entry.getKey())
          && cacheFilter.accepts(new String(key, StandardCharsets.UTF_8))) {
        cacheable.add(key);
      }
    }
    servable = ServableKeys.of(cacheable, KeyHashes::hash);
    hotKeyNames = List.copyOf(hot.keySet());
    List<byte[]> servableKeys = List.copyOf(cacheable);
    for (Consumer<List<byte[]>> listener : servableListeners) {
      listener.accept(servableKeys);
    }
  }
}
