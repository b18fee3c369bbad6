package io.hotkey.agent.core;

import io.hotkey.agent.cache.HotKeyReads;
import io.hotkey.agent.detect.HotKeyListener;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.detect.KeyRate;
import io.hotkey.config.KeyFilter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The agent's view of which keys are hot right now. It hears the detector's promotions and
 * demotions (on the detector's tick thread), logs them, tells metric exporters, and publishes the
 * subset whose reads may be served locally: keys accepted by {@code hotkey.cache.include/exclude},
 * when the cache is on, among those hot here or, by the fleet's shared aggregate, everywhere. A hot
 * key written at {@code hotkey.detect.write-threshold} or more is write-hot: logged once with the
 * advice to split it, and never served (every read would miss after the next write anyway); it
 * stays write-hot until demoted. A served key written elsewhere more often than it is read here
 * stops being served and tracked for a while ({@link FanOutGuard}). With the cache on, each key hot
 * here or across the fleet has its {@link HotKeyReads} from the moment it becomes hot until it is
 * hot nowhere.
 */
public final class HotKeyRegistry implements HotKeyListener {
  /** Told about every promotion and demotion, e.g. to add and remove per-key meters. */
  public interface Observer {
    void onPromoted(KeyRate key);

    void onDemoted(KeyRate key);
  }

  private final boolean cacheEnabled;
  private final boolean everyKeyHot;
  private final HotKeyReads otherKeysReads = new HotKeyReads();
  private KeyFilter cacheFilter;
  private double writeHotPerSecond;
  private final Map<String, KeyRate> hot = new LinkedHashMap<>();
  private final Map<String, KeyRate> writeHot = new LinkedHashMap<>();
  private final List<Observer> observers = new CopyOnWriteArrayList<>();
  private final List<Consumer<List<byte[]>>> servableListeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<byte[]>> fanOutListeners = new CopyOnWriteArrayList<>();
  private volatile FanOutGuard fanOut = FanOutGuard.off();
  private Map<String, HotKeyReads> servedReads = Map.of();
  private Map<String, FleetHotKey> fleetHot = Map.of();
  private volatile HotKeyTable table = HotKeyTable.EMPTY;
  private volatile Map<String, HotKeyReads> readsByName = Map.of();
  private List<byte[]> servableKeys = List.of();
  private volatile List<String> hotKeyNames = List.of();
  private volatile List<String> writeHotKeyNames = List.of();
  private volatile List<FleetHotKey> fleetHotKeys = List.of();

  /** A key hot across the fleet: the summed rate of every instance that reported it. */
  public static final class FleetHotKey {
    private final byte[] key;
    private final double fleetRatePerSecond;
    private final double localShareFloorPerSecond;

    /**
     * @param localShareFloorPerSecond the least rate at which an instance's accesses of a key count
     *     towards the fleet's sum (its report floor): the rate at which the key is hot here
     */
    public FleetHotKey(byte[] key, double fleetRatePerSecond, double localShareFloorPerSecond) {
      this.key = key;
      this.fleetRatePerSecond = fleetRatePerSecond;
      this.localShareFloorPerSecond = localShareFloorPerSecond;
    }

    public byte[] key() {
      return key;
    }

    public double fleetRatePerSecond() {
      return fleetRatePerSecond;
    }

    public double localShareFloorPerSecond() {
      return localShareFloorPerSecond;
    }
  }

  /**
   * @param writeHotPerSecond writes per second that make a hot key write-hot ({@code
   *     hotkey.detect.write-threshold})
   */
  public HotKeyRegistry(boolean cacheEnabled, KeyFilter cacheFilter, double writeHotPerSecond) {
    this(cacheEnabled, cacheFilter, writeHotPerSecond, false);
  }

  /**
   * @param everyKeyHot every key is hot and servable from its first access, but for keys the
   *     detector finds write-hot ({@code hotkey.debug.every-key-hot})
   */
  public HotKeyRegistry(
      boolean cacheEnabled, KeyFilter cacheFilter, double writeHotPerSecond, boolean everyKeyHot) {
    this.everyKeyHot = cacheEnabled && everyKeyHot;
    this.cacheEnabled = cacheEnabled;
    this.cacheFilter = cacheFilter;
    this.writeHotPerSecond = writeHotPerSecond;
    if (this.everyKeyHot) {
      publish();
    }
  }

  /**
   * A reloaded configuration: the cache filter and the write-hot rate from now on. Returns the hot
   * keys the filter accepted before and refuses now, whose local entries must be dropped.
   */
  public synchronized List<byte[]> reconfigure(KeyFilter filter, double writeHotPerSecond) {
    List<byte[]> servableBefore = servableKeys;
    this.cacheFilter = filter;
    this.writeHotPerSecond = writeHotPerSecond;
    publish();
    List<byte[]> refused = new ArrayList<>();
    for (byte[] key : servableBefore) {
      if (!isServable(key, KeyHashes.hash(key))) {
        refused.add(key);
      }
    }
    return refused;
  }

  /**
   * After every detector tick, with its hot keys: marks those whose writes now reach the write-hot
   * rate (a key can become write-hot while it stays hot).
   */
  public synchronized void onRates(List<KeyRate> hotKeys) {
    boolean changed = false;
    for (KeyRate key : hotKeys) {
      if (writesPerSecond(key) < writeHotPerSecond) {
        continue;
      }
      String name = AgentLog.printable(key.key());
      if (hot.containsKey(name) && !writeHot.containsKey(name)) {
        changed |= markIfWriteHot(name, key);
      }
    }
    if (changed) {
      publish();
    }
  }

  /**
   * After every detector tick: demotes the served keys whose invalidations received over a window
   * outweigh their reads here ({@link FanOutGuard}), and serves again those whose cool-down is
   * over.
   *
   * @param hotPerSecond the rate at which a key is hot here ({@code hotkey.detect.threshold}); a
   *     key hot only across the fleet is hot here at its share's floor
   */
  public synchronized void checkFanOut(long nowNanos, double hotPerSecond) {
    if (fanOut.release(nowNanos)) {
      publish(); // served again from now, so their windows start now
    }
    List<String> demoted =
        fanOut.check(
            servedReads,
            name ->
                hot.containsKey(name)
                    ? hotPerSecond
                    : fleetHot.get(name).localShareFloorPerSecond(),
            nowNanos);
    for (String name : demoted) {
      byte[] key = keyNamed(name);
      for (Consumer<byte[]> listener : fanOutListeners) {
        listener.accept(key);
      }
    }
    if (!demoted.isEmpty()) {
      publish();
    }
  }

  private byte[] keyNamed(String name) {
    KeyRate local = hot.get(name);
    return local != null ? local.key() : fleetHot.get(name).key();
  }

  /** From the start, before any key is hot: the fan-out guard's settings. */
  public synchronized void guardFanOut(FanOutGuard guard) {
    this.fanOut = guard;
  }

  /**
   * Told each key the fan-out guard demotes, before the servable keys without it are published: its
   * entries must be dropped and its tracking ended.
   */
  public void addFanOutListener(Consumer<byte[]> listener) {
    fanOutListeners.add(listener);
  }

  /** Keys the fan-out guard demoted since the start, each cool-down counted once. */
  public long fanOutDemotions() {
    return fanOut.demotions();
  }

  /**
   * Counts a report, received through tracking, that {@code key} changed, against the key if it is
   * served here.
   */
  public void countInvalidation(byte[] key) {
    HotKeyTable.Entry entry = table.find(key, KeyHashes.hash(key));
    if (entry != null && entry.servable) {
      entry.reads.countInvalidation();
    }
  }

  private static double writesPerSecond(KeyRate key) {
    return key.count() == 0 ? 0 : key.ratePerSecond() * key.writes() / key.count();
  }

  private boolean markIfWriteHot(String name, KeyRate key) {
    double writesPerSecond = writesPerSecond(key);
    if (writesPerSecond < writeHotPerSecond) {
      return false;
    }
    writeHot.put(name, key);
    AgentLog.info(
        "write-hot key: key=\""
            + name
            + "\" writes="
            + Math.round(writesPerSecond)
            + "/s; consider splitting it (N sub-keys, writes routed by hash, reads summed)");
    return true;
  }

  /** Printable names of the hot keys that are write-hot, as the logs show them. */
  public List<String> writeHotKeyNames() {
    return writeHotKeyNames;
  }

  public void addObserver(Observer observer) {
    observers.add(observer);
  }

  /**
   * Told the keys that may be served locally (a new immutable list) on every change, e.g. to have
   * them tracked.
   */
  public synchronized void addServableListener(Consumer<List<byte[]>> listener) {
    servableListeners.add(listener);
    if (!servableKeys.isEmpty()) {
      listener.accept(servableKeys);
    }
  }

  boolean isServable(byte[] key, int hash) {
    HotKeyTable.Entry hot = table.find(key, hash);
    return hot != null && hot.servable;
  }

  /** The hot keys as reads look them up. */
  HotKeyTable table() {
    return table;
  }

  /**
   * The reads of the hot key the logs print as {@code printableKey} since it became hot; null when
   * it is not hot or the cache is off (nothing is counted then).
   */
  public HotKeyReads reads(String printableKey) {
    return readsByName.get(printableKey);
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
        if (!hot.containsKey(name)) {
          fanOut.cooled(name);
        }
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
    markIfWriteHot(name, key);
    publish();
    for (Observer observer : observers) {
      observer.onPromoted(key);
    }
  }

  @Override
  public synchronized void onDemoted(KeyRate key) {
    String name = AgentLog.printable(key.key());
    hot.remove(name);
    writeHot.remove(name);
    fanOut.cooled(name);
    AgentLog.info(
        "hot key demoted: key=\"" + name + "\" rate=" + Math.round(key.ratePerSecond()) + "/s");
    publish();
    for (Observer observer : observers) {
      observer.onDemoted(key);
    }
  }

  private void publish() {
    List<HotKeyTable.Entry> entries = new ArrayList<>();
    Map<String, HotKeyReads> reads = new HashMap<>();
    List<byte[]> cacheable = new ArrayList<>();
    Map<String, HotKeyReads> served = new HashMap<>();
    if (cacheEnabled) {
      for (Map.Entry<String, KeyRate> entry : hot.entrySet()) {
        KeyRate key = entry.getValue();
        byte[] bytes = key.key();
        // a truncated key cannot be matched exactly, so it is reported but never served
        boolean servable =
            !key.truncated()
                && !writeHot.containsKey(entry.getKey())
                && !fanOut.demoted(entry.getKey())
                && accepted(bytes);
        HotKeyReads keyReads = readsOf(entry.getKey(), reads);
        entries.add(new HotKeyTable.Entry(bytes, key.keyLength(), key.hash(), servable, keyReads));
        if (servable) {
          cacheable.add(bytes);
          served.put(entry.getKey(), keyReads);
        }
      }
      for (Map.Entry<String, FleetHotKey> entry : fleetHot.entrySet()) {
        byte[] key = entry.getValue().key();
        if (hot.containsKey(entry.getKey())) {
          continue;
        }
        boolean servable =
            !writeHot.containsKey(entry.getKey())
                && !fanOut.demoted(entry.getKey())
                && accepted(key);
        HotKeyReads keyReads = readsOf(entry.getKey(), reads);
        entries.add(
            new HotKeyTable.Entry(key, key.length, KeyHashes.hash(key), servable, keyReads));
        if (servable) {
          cacheable.add(key);
          served.put(entry.getKey(), keyReads);
        }
      }
    }
    if (everyKeyHot) {
      table = HotKeyTable.everyKey(entries, otherKeysReads);
      // the empty prefix: tracking covers every key
      cacheable.add(new byte[0]);
    } else {
      table = HotKeyTable.of(entries);
    }
    readsByName = Map.copyOf(reads);
    servedReads = served;
    hotKeyNames = List.copyOf(hot.keySet());
    writeHotKeyNames = List.copyOf(writeHot.keySet());
    servableKeys = List.copyOf(cacheable);
    for (Consumer<List<byte[]>> listener : servableListeners) {
      listener.accept(servableKeys);
    }
  }

  private boolean accepted(byte[] key) {
    return cacheFilter.accepts(new String(key, StandardCharsets.UTF_8));
  }

  /** A key that stays hot keeps counting in the reads it had; one that just became hot starts. */
  private HotKeyReads readsOf(String name, Map<String, HotKeyReads> into) {
    HotKeyReads kept = readsByName.get(name);
    HotKeyReads reads = kept != null ? kept : new HotKeyReads();
    into.put(name, reads);
    return reads;
  }
}
