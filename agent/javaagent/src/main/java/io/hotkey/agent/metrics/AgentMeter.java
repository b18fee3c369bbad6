package io.hotkey.agent.metrics;

import io.hotkey.agent.core.ServingGate;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * One meter of the agent's metrics table, named once for every registry it goes to (the
 * application's Micrometer through {@link MicrometerBridge}, the endpoint's bundled Prometheus
 * registry). Per-key rates are not here: they come and go with promotions ({@link #KEY_RATE}).
 */
public final class AgentMeter {
  /** Accesses per second of one hot key, tag {@code key}; one series per hot key. */
  public static final String KEY_RATE = "hotkey.key.rate";

  public static final String KEY_RATE_DESCRIPTION = "accesses per second of a hot key";

  /** How a registry should present the value. */
  public enum Kind {
    /** Only grows; Prometheus names it {@code _total}. */
    COUNTER,
    GAUGE
  }

  private final String name;
  private final String description;
  private final Kind kind;
  private final ToDoubleFunction<AgentMeters> value;
  private final String[] tags;

  private AgentMeter(
      String name,
      String description,
      Kind kind,
      ToDoubleFunction<AgentMeters> value,
      String... tags) {
    this.name = name;
    this.description = description;
    this.kind = kind;
    this.value = value;
    this.tags = tags;
  }

  /** Every meter for these figures; an idempotency counter per outcome only when routes exist. */
  public static List<AgentMeter> all(AgentMeters meters) {
    String commands = "Redis commands seen by the agent";
    List<AgentMeter> all = new ArrayList<>();
    all.add(counter("hotkey.commands", commands, AgentMeters::readCommands, "kind", "read"));
    all.add(counter("hotkey.commands", commands, AgentMeters::writeCommands, "kind", "write"));
    all.add(gauge("hotkey.hotkeys", "keys hot right now", m -> m.hotKeys().size()));
    all.add(
        gauge(
            "hotkey.write.hotkeys",
            "hot keys written at the write threshold's rate or more (never served locally)",
            m -> m.writeHotKeys().size()));
    all.add(counter("hotkey.cache.hits", "reads answered locally", AgentMeters::cacheHits));
    all.add(
        counter(
            "hotkey.cache.misses",
            "reads of hot keys that went to Redis",
            AgentMeters::cacheMisses));
    all.add(
        counter(
            "hotkey.cache.evictions",
            "local entries evicted for size",
            AgentMeters::cacheEvictions));
    all.add(
        counter(
            "hotkey.cache.refreshes",
            "reads that refreshed an entry ahead of its expiry",
            AgentMeters::cacheRefreshes));
    all.add(
        counter(
            "hotkey.cache.stale",
            "reads answered from a stale value after a connection failure",
            AgentMeters::cacheStaleServed));
    all.add(gauge("hotkey.cache.bytes", "bytes held by the local cache", AgentMeters::cacheBytes));
    all.add(gauge("hotkey.cache.entries", "entries in the local cache", AgentMeters::cacheEntries));
    all.add(
        counter(
            "hotkey.agent.errors",
            "internal failures the application never saw",
            AgentMeters::agentErrors));
    all.add(
        counter(
            "hotkey.cache.invalidations",
            "keys Redis reported changed through client tracking",
            AgentMeters::invalidationsReceived));
    all.add(
        counter(
            "hotkey.cache.fanout.demotions",
            "served keys that stopped being served and tracked for a cool-down, their invalidations received outweighing their reads here",
            AgentMeters::fanOutDemotions));
    all.add(
        counter(
            "hotkey.cache.invalidations.held",
            "reports of keys this JVM was writing, held while the write was in flight and applied with its own invalidation",
            AgentMeters::heldInvalidations));
    all.add(
        counter(
            "hotkey.cache.invalidations.helped",
            "messages of the tracking connection (reports, replies to its pings) read and applied by a thread about to serve a hit, the connection's reader not having run for 1 ms",
            AgentMeters::helpedInvalidations));
    all.add(
        counter(
            "hotkey.cache.invalidations.bypassed",
            "reads of hot keys sent to Redis because another thread was reading an overdue tracking connection",
            AgentMeters::invalidationBypasses));
    for (String reason : meters.cacheFlushes().keySet()) {
      all.add(
          counter(
              "hotkey.cache.flushes",
              "times every local entry was dropped at once, by reason",
              m -> m.cacheFlushes().getOrDefault(reason, 0L),
              "reason",
              reason));
    }
    for (String state : meters.trackingServersByState().keySet()) {
      all.add(
          gauge(
              "hotkey.tracking.servers",
              "servers the agent tracks, by state",
              m -> m.trackingServersByState().getOrDefault(state, 0L),
              "state",
              state));
    }
    for (String module : meters.instrumentationModules()) {
      for (String state : ServingGate.ModuleState.all()) {
        all.add(
            gauge(
                "hotkey.instrumentation",
                "class loaders where a client module serves, or only counts because a class it needs was left unwoven",
                m -> m.instrumentationLoaders(module, state),
                "module",
                module,
                "state",
                state));
      }
    }
    all.add(
        gauge(
            "hotkey.fleet.hotkeys",
            "keys hot across the fleet right now",
            m -> m.fleetHotKeys().size()));
    all.add(
        counter(
            "hotkey.fleet.exchanges",
            "exchanges with the fleet's shared counts, by result",
            AgentMeters::fleetExchanges,
            "result",
            "ok"));
    all.add(
        counter(
            "hotkey.fleet.exchanges",
            "exchanges with the fleet's shared counts, by result",
            AgentMeters::fleetExchangeFailures,
            "result",
            "failed"));
    for (String outcome : meters.idempotencyOutcomes().keySet()) {
      all.add(
          counter(
              "hotkey.idempotency.requests",
              "requests on idempotency routes by outcome",
              m -> m.idempotencyOutcomes().getOrDefault(outcome, 0L),
              "outcome",
              outcome));
    }
    return all;
  }

  private static AgentMeter counter(
      String name, String description, ToDoubleFunction<AgentMeters> value, String... tags) {
    return new AgentMeter(name, description, Kind.COUNTER, value, tags);
  }

  private static AgentMeter gauge(
      String name, String description, ToDoubleFunction<AgentMeters> value, String... tags) {
    return new AgentMeter(name, description, Kind.GAUGE, value, tags);
  }

  /** Micrometer's dotted name, e.g. {@code hotkey.cache.hits}. */
  public String name() {
    return name;
  }

  public String description() {
    return description;
  }

  public Kind kind() {
    return kind;
  }

  /** Reads the current value from the figures. */
  public ToDoubleFunction<AgentMeters> value() {
    return value;
  }

  /** Tag names and values, alternating, as Micrometer's {@code tags(String...)} takes them. */
  public String[] tags() {
    return tags.clone();
  }
}
