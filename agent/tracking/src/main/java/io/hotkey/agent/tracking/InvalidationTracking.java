package io.hotkey.agent.tracking;

import io.hotkey.agent.cache.FillGate;
import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.OwnWriteEcho;
import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Server-assisted invalidation ({@code hotkey.cache.invalidation=tracking}): one {@link
 * NodeTracker} per server the application's hot-key replies were read from, started by the first
 * such reply. A reply is stored only if its server's tracker has the reply's keys registered (or
 * that server refused tracking, and the TTL alone bounds it). Every key Redis reports changed is
 * bumped in {@link KeyVersions}, which makes its entries unservable at once, whichever connection
 * filled them.
 */
public final class InvalidationTracking implements FillGate {
  private final KeyVersions versions;

  /**
   * {@code hotkey.redis.uri}: the one server tracked, whatever the replies' servers; null to
   * discover them.
   */
  private final RedisEndpoint override;

  private final ConcurrentHashMap<String, NodeTracker> trackers = new ConcurrentHashMap<>();
  private final LongAdder invalidatedKeys = new LongAdder();
  private final Map<FlushReason, LongAdder> flushes = new EnumMap<>(FlushReason.class);
  private final AtomicBoolean unknownServerLogged = new AtomicBoolean();
  private volatile List<byte[]> wanted = List.of();
  private volatile Consumer<byte[]> reported = key -> {};

  /** Keys whose tracking must end now, not when stale prefixes pile up: a count trackers follow. */
  private final AtomicLong untracks = new AtomicLong();

  private volatile boolean stopped;

  /**
   * The clock that bounds how long a report waits for an own write ({@link ExpectedEchoes}) and how
   * old a drain of the invalidation connections may be ({@link InvalidationDrains}).
   */
  private final LongSupplier clock;

  private final InvalidationDrains drains;

  public InvalidationTracking(KeyVersions versions, RedisEndpoint override) {
    this(versions, override, System::nanoTime);
  }

  InvalidationTracking(KeyVersions versions, RedisEndpoint override, LongSupplier clock) {
    this.versions = versions;
    this.override = override;
    this.clock = clock;
    this.drains = new InvalidationDrains(clock);
    for (FlushReason reason : FlushReason.values()) {
      flushes.put(reason, new LongAdder());
    }
  }

  @Override
  public boolean admits(RedisEndpoint node, byte[][] keys) {
    RedisEndpoint server = override != null ? override : node;
    if (server == null) {
      if (unknownServerLogged.compareAndSet(false, true)) {
        AgentLog.warn(
            "a hot key's reply came through a connection whose server the agent cannot tell; such replies"
                + " are not cached while hotkey.cache.invalidation=tracking (set hotkey.redis.uri to name the server)");
      }
      return false;
    }
    String name = nameOf(server);
    NodeTracker tracker = trackers.get(name);
    if (tracker == null) {
      tracker = trackers.computeIfAbsent(name, n -> new NodeTracker(n, server, this));
      tracker.startOnce();
    }
    return tracker.covers(keys);
  }

  private static String nameOf(RedisEndpoint server) {
    return server.host() + ":" + server.port();
  }

  @Override
  public OwnWriteEcho expectEcho(RedisEndpoint node, byte[] key) {
    RedisEndpoint server = override != null ? override : node;
    if (server == null) {
      return null;
    }
    NodeTracker tracker = trackers.get(nameOf(server));
    return tracker == null ? null : tracker.expectEcho(key);
  }

  /**
   * The keys that may be served locally now (a new list on every change): each tracker registers
   * them.
   */
  public void wantedKeys(List<byte[]> keys) {
    wanted = keys;
    for (NodeTracker tracker : trackers.values()) {
      tracker.wake();
    }
  }

  List<byte[]> wantedKeys() {
    return wanted;
  }

  /**
   * Tells {@code perKey} every key a server reports changed, but for reports held for this JVM's
   * own write (own writes are the write-hot rule's), e.g. to weigh a key's pushes against its
   * reads.
   */
  public void countReports(Consumer<byte[]> perKey) {
    reported = perKey;
  }

  /**
   * {@code key} is served no more because its pushes cost Redis too much: its entries are dropped
   * now, and at the next change of the wanted keys every tracker drops its prefix at once (a fresh
   * session) instead of tolerating it as a stale one.
   */
  public void untrack(byte[] key) {
    invalidate(key);
    untracks.incrementAndGet();
  }

  long untracks() {
    return untracks.get();
  }

  TrackingSession.Listener listenerFor(NodeTracker tracker) {
    return new TrackingSession.Listener() {
      @Override
      public void onInvalidated(List<byte[]> keys) {
        // counted first: whoever sees an entry invalidated sees the report counted too
        invalidatedKeys.add(keys.size());
        Consumer<byte[]> counter = reported;
        for (byte[] key : keys) {
          if (key == null) {
            continue;
          }
          if (!tracker.isOwnWriteEcho(key)) {
            counter.accept(key);
            invalidate(key);
          }
        }
      }

      @Override
      public void onFlushed() {
        flush(FlushReason.SERVER_FLUSH);
      }

      @Override
      public void onBroken(String reason) {
        tracker.streamBroken(reason);
      }
    };
  }

  LongSupplier clock() {
    return clock;
  }

  InvalidationDrains drains() {
    return drains;
  }

  /**
   * Every report received more than a millisecond ago is applied, by this thread if the
   * connection's reader has not run since (see {@link InvalidationDrains}).
   */
  @Override
  public boolean caughtUp(long nowNanos) {
    return drains.caughtUp(nowNanos);
  }

  /** Reports (and replies) read and applied by threads about to serve a hit. */
  public long helpedInvalidations() {
    return drains.helped();
  }

  /** Reads sent to Redis because another thread was draining an overdue connection. */
  public long invalidationBypasses() {
    return drains.notCaughtUp();
  }

  void invalidate(byte[] key) {
    versions.bump(KeyHashes.hash(key));
  }

  void flush(FlushReason reason) {
    if (reason == FlushReason.TRACKING_LOST) {
      versions.distrustAll();
    } else {
      versions.bumpAll();
    }
    flushes.get(reason).increment();
  }

  boolean stopped() {
    return stopped;
  }

  /** Stops every tracker (their connections close within a ping interval). */
  public void stop() {
    stopped = true;
    for (NodeTracker tracker : trackers.values()) {
      tracker.wake();
    }
  }

  /** Keys reported changed by the servers, counted once per report. */
  public long invalidatedKeys() {
    return invalidatedKeys.sum();
  }

  /**
   * Reports held for an own write of their key and applied with its invalidation; counted in {@link
   * #invalidatedKeys} too.
   */
  public long heldEchoes() {
    long held = 0;
    for (NodeTracker tracker : trackers.values()) {
      held += tracker.heldEchoes();
    }
    return held;
  }

  public Map<String, Long> flushes() {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (Map.Entry<FlushReason, LongAdder> entry : flushes.entrySet()) {
      counts.put(entry.getKey().name().toLowerCase(Locale.ROOT), entry.getValue().sum());
    }
    return counts;
  }

  /** One line per tracked server: {@code host:port state (mode)}. */
  public List<String> servers() {
    List<String> lines = new ArrayList<>();
    for (NodeTracker tracker : trackers.values()) {
      lines.add(
          tracker.node()
              + " "
              + tracker.state().name().toLowerCase(Locale.ROOT)
              + (tracker.mode().isEmpty() ? "" : " (" + tracker.mode() + ")"));
    }
    return lines;
  }

  /** Servers by tracking state, for the state gauge. */
  public Map<String, Long> serversByState() {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (NodeTracker.State state : NodeTracker.State.values()) {
      counts.put(state.name().toLowerCase(Locale.ROOT), 0L);
    }
    for (NodeTracker tracker : trackers.values()) {
      counts.merge(tracker.state().name().toLowerCase(Locale.ROOT), 1L, Long::sum);
    }
    return counts;
  }
}
