package io.hotkey.agent.tracking;

import io.hotkey.agent.cache.OwnWriteEcho;
import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * Keeps one server's invalidations flowing, on a thread of its own: opens a {@link
 * TrackingSession}, registers the hot keys as broadcast prefixes, pings, and reconnects with
 * backoff when the stream breaks. It publishes the keys whose registration Redis acknowledged;
 * {@link #covers} answers from that set, so a reply is stored only if every later write to its keys
 * will be reported.
 *
 * <p>A prefix that Redis would refuse (it overlaps a registered one) or prefixes left by demoted
 * keys are dealt with by a fresh session registered with the minimal set, swapped in once
 * acknowledged: the old one keeps reporting until then, so the swap has no gap.
 */
final class NodeTracker implements Runnable {
  enum State {
    /** Not tracking yet: replies of this server are not stored. */
    STARTING,
    TRACKING,
    /** Tracking was lost: entries were flushed and replies are not stored until it is back. */
    GAP,
    /**
     * The server refused tracking before it ever worked: replies are stored, bounded by the TTL
     * alone.
     */
    TTL_FALLBACK
  }

  /** How often held reports are checked against their bound between pings. */
  private static final long HELD_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(25);

  private static final long MAX_BACKOFF_MILLIS = 5000;

  /** How soon after an attempt a reply of this server may cut the next backoff short. */
  private static final long RETRY_ON_REPLY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /** Demoted prefixes tolerated before a fresh session drops them. */
  private static final int STALE_PREFIXES = 16;

  private final String node;
  private final RedisEndpoint endpoint;
  private final InvalidationTracking owner;
  private final Object signal = new Object();

  /** Hot keys changed or the stream broke: cuts an idle wait short. Guarded by {@link #signal}. */
  private boolean woken;

  /**
   * The server answered the application during a loss: cuts a backoff short. Guarded by {@link
   * #signal}.
   */
  private boolean retryNow;

  private volatile State state = State.STARTING;
  private volatile Set<ByteBuffer> covered = Set.of();
  private volatile String mode = "";

  /** When the last session was opened, and whether its failure was a refusal. */
  private volatile long lastAttemptNanos = System.nanoTime();

  private volatile boolean refused;

  /** The session whose registration {@link #covered} reflects; guarded by this tracker. */
  private TrackingSession published;

  /**
   * The current {@link PingInterval}, when the last PING went out (or the session that proved the
   * link opened), and when to count the server's tracking clients next. Used by this tracker's
   * thread only.
   */
  private long pingIntervalNanos = PingInterval.MIN_NANOS;

  private long pingedAtNanos;
  private long countAtNanos;
  private boolean firstCount;

  /** The server did not say how many clients track it: asked no more in this session. */
  private boolean countUnknown;

  private boolean countUnknownLogged;

  private final ExpectedEchoes echoes;
  private final Predicate<byte[]> coveredNow = this::coveredNow;

  /**
   * Whether a reply already cut this loss's backoff short: once per loss, so that a server that
   * answers the application but keeps breaking the tracking connection is retried with backoff.
   */
  private final AtomicBoolean retryAsked = new AtomicBoolean();

  NodeTracker(String node, RedisEndpoint endpoint, InvalidationTracking owner) {
    this.node = node;
    this.endpoint = endpoint;
    this.owner = owner;
    this.echoes = new ExpectedEchoes(owner::invalidate, owner.clock());
  }

  private final AtomicBoolean started = new AtomicBoolean();

  /** Starts the tracker's thread, the first time only (several fills may race to create it). */
  void startOnce() {
    if (!started.compareAndSet(false, true)) {
      return;
    }
    Thread thread = new Thread(this, "hotkey-tracking-" + node);
    thread.setDaemon(true);
    thread.start();
  }

  /** Whether a reply depending on {@code keys} (null: not all known) may be stored. */
  boolean covers(byte[][] keys) {
    State current = state;
    if (current == State.TTL_FALLBACK) {
      return true;
    }
    if (current == State.GAP) {
      retryOnReply();
      return false;
    }
    if (current != State.TRACKING || keys == null) {
      return false;
    }
    Set<ByteBuffer> acknowledged = covered;
    if (Prefixes.contains(acknowledged, Prefixes.EVERY_KEY)) {
      return true; // the empty prefix is registered: hotkey.debug.every-key-hot
    }
    for (byte[] key : keys) {
      if (!Prefixes.contains(acknowledged, key)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The application just read a reply of this server while tracking is lost: the server answers
   * again, so the tracker retries now rather than at the end of a backoff that grew while it was
   * away, and hot keys are served again within milliseconds of its return instead of seconds. Once
   * per loss; a server that refused tracking keeps its backoff.
   */
  private void retryOnReply() {
    if (!refused
        && System.nanoTime() - lastAttemptNanos >= RETRY_ON_REPLY_NANOS
        && retryAsked.compareAndSet(false, true)) {
      synchronized (signal) {
        retryNow = true;
        signal.notifyAll();
      }
    }
  }

  /** See {@link io.hotkey.agent.cache.FillGate#expectEcho}. */
  OwnWriteEcho expectEcho(byte[] key) {
    return echoes.expect(key, coveredNow);
  }

  private boolean coveredNow(byte[] key) {
    return state == State.TRACKING && Prefixes.contains(covered, key);
  }

  /**
   * A report of {@code key} arrived: true if an own write of the key takes it (see {@link
   * ExpectedEchoes}), false if it must be applied now.
   */
  boolean isOwnWriteEcho(byte[] key) {
    return echoes.takes(key);
  }

  /** Reports held for an own write of their key and applied with its invalidation. */
  long heldEchoes() {
    return echoes.held();
  }

  State state() {
    return state;
  }

  String node() {
    return node;
  }

  /** How invalidations arrive ("RESP3" or "RESP2 redirect"), or why there are none. */
  String mode() {
    return mode;
  }

  /**
   * The hot keys changed: register the new ones now rather than at the next ping. It does not cut a
   * reconnect's backoff short: hot keys change all the time.
   */
  void wake() {
    synchronized (signal) {
      woken = true;
      signal.notifyAll();
    }
  }

  @Override
  public void run() {
    int failures = 0;
    while (!owner.stopped()) {
      String lost;
      String remedy = null;
      lastAttemptNanos = System.nanoTime();
      refused = false;
      try {
        lost = track();
        failures = 0;
      } catch (TrackingRefused e) {
        lost = e.getMessage();
        remedy = e.remedy();
        refused = true;
      } catch (IOException | RuntimeException e) {
        lost = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      }
      onLost(lost, remedy);
      failures++;
      long backoffMillis =
          failures == 1 ? 0 : Math.min(MAX_BACKOFF_MILLIS, 100L << Math.min(failures - 2, 10));
      await(TimeUnit.MILLISECONDS.toNanos(backoffMillis), true);
    }
  }

  /** Runs sessions until the stream breaks; returns why. */
  private String track() throws IOException, TrackingRefused {
    TrackingSession session =
        TrackingSession.open(endpoint, owner.listenerFor(this), owner.drains());
    pingedAtNanos = System.nanoTime();
    countAtNanos = pingedAtNanos;
    firstCount = true;
    countUnknown = false;
    List<byte[]> registered = new ArrayList<>();
    List<byte[]> lastWanted = null;
    long handledUntracks = owner.untracks();
    try {
      while (!owner.stopped()) {
        String broken = session.brokenBecause();
        if (broken != null) {
          return broken;
        }
        // read before the list: an untrack is counted before the list without its key is published
        long untracks = owner.untracks();
        List<byte[]> wanted = owner.wantedKeys();
        if (wanted == lastWanted && untracks == handledUntracks) {
          // the registry publishes a new list on every change: nothing to register
          ping(session);
          continue;
        }
        int staleTolerated = untracks == handledUntracks ? STALE_PREFIXES : 0;
        lastWanted = wanted;
        handledUntracks = untracks;
        List<byte[]> minimal = Prefixes.minimal(wanted);
        if (needsFreshSession(registered, minimal, wanted, staleTolerated)) {
          TrackingSession fresh =
              TrackingSession.open(endpoint, owner.listenerFor(this), owner.drains());
          try {
            if (!minimal.isEmpty()) {
              fresh.addPrefixes(minimal);
            }
          } catch (IOException | TrackingRefused | RuntimeException e) {
            fresh.close();
            throw e;
          }
          TrackingSession old = session;
          session = fresh;
          registered = new ArrayList<>(minimal);
          publish(wanted, registered, session);
          old.close();
        } else {
          List<byte[]> added = new ArrayList<>();
          for (byte[] prefix : minimal) {
            if (!isCovered(prefix, registered)) {
              added.add(prefix);
            }
          }
          if (!added.isEmpty()) {
            session.addPrefixes(added);
            registered.addAll(added);
          }
          publish(wanted, registered, session);
        }
        ping(session);
      }
      return "agent stopped";
    } finally {
      session.close();
    }
  }

  /**
   * Demoted keys' prefixes have piled up past {@code staleTolerated} (0 when a key's tracking must
   * end now), or a new key is a prefix of a registered one (Redis would refuse it).
   */
  private static boolean needsFreshSession(
      List<byte[]> registered, List<byte[]> minimal, List<byte[]> wanted, int staleTolerated) {
    int stale = 0;
    for (byte[] prefix : registered) {
      boolean used = false;
      for (byte[] key : wanted) {
        if (Prefixes.startsWith(key, prefix)) {
          used = true;
          break;
        }
      }
      if (!used) {
        stale++;
      }
    }
    if (stale > staleTolerated) {
      return true;
    }
    for (byte[] prefix : minimal) {
      if (!isCovered(prefix, registered)) {
        for (byte[] existing : registered) {
          if (Prefixes.overlap(prefix, existing)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static boolean isCovered(byte[] key, List<byte[]> prefixes) {
    for (byte[] prefix : prefixes) {
      if (Prefixes.startsWith(key, prefix)) {
        return true;
      }
    }
    return false;
  }

  // Prefixes.covered wraps each key's whole array
  @SuppressWarnings("ByteBufferBackingArray")
  private static byte[] wholeKey(ByteBuffer key) {
    return key.array();
  }

  /**
   * Publishes the keys now covered. A newly covered key is bumped first: a reply read before its
   * registration was acknowledged may predate a write nobody reported, and must never be stored. On
   * a new session every key is: the session it replaces is closed with the reports it had not
   * delivered yet, those of writes applied before the new one registered.
   */
  private synchronized void publish(
      List<byte[]> wanted, List<byte[]> registered, TrackingSession session) {
    if (session.brokenBecause() != null) {
      return; // its reader reports the break; the loop then reconnects
    }
    Set<ByteBuffer> now = Prefixes.covered(wanted, registered);
    Set<ByteBuffer> before = covered;
    boolean newSession = session != published;
    for (ByteBuffer key : now) {
      if (newSession || !before.contains(key)) {
        owner.invalidate(wholeKey(key));
      }
    }
    covered = now;
    if (newSession) {
      published = session;
      echoes.clear();
    }
    if (state != State.TRACKING) {
      State previous = state;
      mode = session.resp3() ? "RESP3" : "RESP2 redirect";
      state = State.TRACKING;
      retryAsked.set(false);
      AgentLog.info(
          "tracking "
              + session
              + (previous == State.GAP ? " again" : "")
              + ": other processes' writes"
              + " to hot keys invalidate local entries");
    }
  }

  /**
   * The invalidation stream broke: from this moment changes may go unreported, so nothing is stored
   * and every entry is dropped now, on the reader's thread, rather than when this tracker's loop
   * next looks (up to a ping interval later).
   */
  void streamBroken(String reason) {
    synchronized (this) {
      if (state != State.TRACKING || owner.stopped()) {
        return;
      }
      state = State.GAP;
      covered = Set.of();
      mode = reason;
    }
    echoes.clear();
    owner.flush(FlushReason.TRACKING_LOST);
    AgentLog.warn(
        "tracking lost on "
            + node
            + ": "
            + reason
            + "; local entries dropped, hot keys read from Redis until it is back (reconnecting)");
    wake();
  }

  /**
   * @param remedy what would let the agent track, when the server refused; null when it could not
   *     be reached
   */
  private void onLost(String reason, String remedy) {
    State previous = state;
    if (owner.stopped()) {
      state = State.GAP;
      covered = Set.of();
      echoes.clear();
      return;
    }
    if (previous == State.TRACKING) {
      streamBroken(reason);
    } else if (previous == State.STARTING) {
      state = State.TTL_FALLBACK;
      mode = reason;
      AgentLog.warn(
          "tracking unavailable on "
              + node
              + ": "
              + reason
              + "; other processes' writes are seen only after hotkey.cache.ttl"
              + (remedy != null ? " (" + remedy + "; retrying)" : " until it connects (retrying)"));
    }
  }

  /**
   * Pings when the last PING is an interval old, counting the server's tracking clients first when
   * that is due, then waits until the next PING is due or the tracker is woken. A wake-up (the hot
   * keys changed) does not ping at once: registering them got the server's answer already.
   */
  private void ping(TrackingSession session) throws IOException {
    long now = System.nanoTime();
    if (!countUnknown && now - countAtNanos >= 0) {
      countTrackingClients(session, now);
    }
    if (now - pingedAtNanos >= pingIntervalNanos) {
      session.ping();
      pingedAtNanos = now;
    }
    idleUntil(pingedAtNanos + pingIntervalNanos);
  }

  private void countTrackingClients(TrackingSession session, long now) throws IOException {
    OptionalLong clients = session.trackingClients();
    if (clients.isPresent()) {
      pingIntervalNanos = PingInterval.forTrackingClients(clients.getAsLong());
      countAtNanos =
          now + (firstCount ? PingInterval.FIRST_RECOUNT_NANOS : PingInterval.RECOUNT_NANOS);
      firstCount = false;
      return;
    }
    countUnknown = true;
    pingIntervalNanos = PingInterval.MIN_NANOS;
    if (!countUnknownLogged) {
      countUnknownLogged = true;
      AgentLog.info(
          "tracking "
              + node
              + ": the server does not say how many clients track it (INFO clients refused, or"
              + " no tracking_clients); pinging every 250 ms whatever their number (allow INFO"
              + " for the agent's user to let a large fleet ping less often)");
    }
  }

  /**
   * Waits until {@code deadline} (nanoTime), or until woken, applying the reports whose hold ran
   * out meanwhile: a held report is applied at most {@link ExpectedEchoes#HOLD_MILLIS} plus a check
   * interval after it arrived.
   */
  private void idleUntil(long deadline) {
    long left;
    while ((left = deadline - System.nanoTime()) > 0) {
      boolean woken = await(Math.min(left, HELD_CHECK_NANOS), false);
      echoes.expireHeld();
      if (woken) {
        return;
      }
    }
  }

  /**
   * Waits {@code nanos}, or less if cut short: a backoff by {@link #retryOnReply} or the agent's
   * stop, an idle wait by {@link #wake} too. Either way both signals are consumed, since what
   * follows reads the hot keys and the state afresh. An interrupt is ignored: the thread is the
   * agent's own and stops when the tracking does.
   *
   * @return whether it was cut short
   */
  private boolean await(long nanos, boolean backoff) {
    synchronized (signal) {
      long end = System.nanoTime() + nanos;
      long left;
      while (!(retryNow || owner.stopped() || (!backoff && woken))
          && (left = end - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(signal, left);
        } catch (InterruptedException e) {
          AgentLog.warn("tracking thread of " + node + " interrupted; it keeps tracking");
        }
      }
      boolean cut = retryNow || owner.stopped() || (!backoff && woken);
      woken = false;
      retryNow = false;
      return cut;
    }
  }
}
