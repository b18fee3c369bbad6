package io.hotkey.agent.tracking;

import io.hotkey.agent.cache.OwnWriteEcho;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The reports one tracked server owes for the application's own writes. The first report of a key
 * after own writes of it were expected is taken by all of them: dropped if one of them has
 * {@linkplain OwnWriteEcho#invalidatedLocally() invalidated the key locally} by then, else held
 * until one does (dropped) or all are cancelled (applied), and applied anyway once held for {@link
 * #HOLD_MILLIS}. Every other report is applied as it arrives; own writes expected after a report
 * wait for the next one.
 *
 * <p>Why that is safe: an expectation is made before its write is sent, and Redis sends one
 * connection's reports in the order it applied their writes, so the write's own report comes after
 * the expectation was made, and the first one after it stands for writes applied no later than the
 * own write (in the same event-loop iteration at the latest, all of which Redis applies before it
 * sends that iteration's replies). The own write's local invalidation runs after its reply was
 * read: a fill stamped before it is dead, and a fill stamped after it asks Redis after all those
 * writes were applied. Later writes have later reports, which are applied. A report held costs the
 * entries of its key the time the own write takes to return: on loopback, microseconds.
 *
 * <p>Why: Redis writes an iteration's reports just before its replies, so the report of an own
 * write usually arrives while its reply is still being read. Applied at once, it would kill the
 * fill that the key's next reader starts, and the write's local invalidation would then kill the
 * next one: two reads from Redis per own write of a hot key instead of one.
 *
 * <p>All of it holds only while the report is sure to come on the stream being read: expectations
 * are made only for keys whose registration Redis acknowledged, and dropped with the session that
 * would deliver them.
 */
final class ExpectedEchoes {
  /** Keys expected at most: an abandoned connection may leave some unsettled. */
  static final int MAX_KEYS = 4096;

  /** Own writes of one key expected at most together. */
  static final int MAX_WRITES_PER_KEY = 256;

  /**
   * The longest a report waits for its writes to settle (one whose reply is never read: a pipeline
   * abandoned without closing its connection), checked at each report and each ping.
   */
  static final long HOLD_MILLIS = 50;

  private static final long HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(HOLD_MILLIS);

  /** Own writes of a key expected since its last report, by key. */
  private final Map<ByteBuffer, Writes> expected = new HashMap<>();

  /** Writes holding their key's report, oldest first (some may have settled since). */
  private final ArrayDeque<Writes> holding = new ArrayDeque<>();

  private final Consumer<byte[]> invalidate;
  private final LongSupplier nanoClock;
  private final LongAdder redundant = new LongAdder();

  /**
   * How many keys are expected or held, read without the lock so that a report finds none cheaply.
   */
  private volatile int pending;

  /**
   * @param invalidate applies a report of a key
   * @param nanoClock {@link System#nanoTime}
   */
  ExpectedEchoes(Consumer<byte[]> invalidate, LongSupplier nanoClock) {
    this.invalidate = invalidate;
    this.nanoClock = nanoClock;
  }

  /**
   * An expectation for a write of {@code key}, or null when too many are held or {@code covered}
   * says the key's report is not sure to come: decided under the lock that {@link #clear} takes, so
   * that an expectation made on a registration a session change ends is cleared with it.
   */
  synchronized OwnWriteEcho expect(byte[] key, Predicate<byte[]> covered) {
    if (!covered.test(key)) {
      return null;
    }
    Writes writes = expected.get(ByteBuffer.wrap(key));
    if (writes == null) {
      if (expected.size() >= MAX_KEYS) {
        return null;
      }
      // the application may reuse its key's array once the command is sent
      writes = new Writes(key.clone());
      expected.put(writes.wrapped, writes);
      updatePending();
    } else if (writes.unsettled >= MAX_WRITES_PER_KEY) {
      return null;
    }
    writes.unsettled++;
    return new Echo(writes);
  }

  /**
   * A report of {@code key} arrived: true if own writes of the key take it (the caller does not
   * apply it), false if the caller must apply it now.
   */
  boolean takes(byte[] key) {
    if (pending == 0) {
      return false;
    }
    synchronized (this) {
      long now = nanoClock.getAsLong();
      expireHeld(now);
      Writes writes = expected.remove(ByteBuffer.wrap(key));
      if (writes == null) {
        return false;
      }
      if (writes.invalidated) {
        writes.state = State.SETTLED;
        redundant.increment();
      } else {
        writes.state = State.HOLDING;
        writes.heldSince = now;
        holding.addLast(writes);
      }
      updatePending();
      return true;
    }
  }

  /** Applies the reports held longer than {@link #HOLD_MILLIS}. */
  void expireHeld() {
    if (pending == 0) {
      return;
    }
    synchronized (this) {
      expireHeld(nanoClock.getAsLong());
      updatePending();
    }
  }

  private void expireHeld(long now) {
    Writes oldest;
    while ((oldest = holding.peekFirst()) != null
        && (oldest.state != State.HOLDING || now - oldest.heldSince > HOLD_NANOS)) {
      holding.removeFirst();
      if (oldest.state == State.HOLDING) {
        oldest.state = State.SETTLED;
        invalidate.accept(oldest.key);
      }
    }
  }

  /** Reports not applied because an own write had invalidated their key. */
  long redundant() {
    return redundant.sum();
  }

  /**
   * The session changed or broke: no report is owed any longer. Reports held stay held: their
   * writes settle them.
   */
  synchronized void clear() {
    for (Writes writes : expected.values()) {
      writes.state = State.SETTLED;
    }
    expected.clear();
    updatePending();
  }

  private void updatePending() {
    pending = expected.size() + holding.size();
  }

  private synchronized void settle(Writes writes, boolean invalidated) {
    if (invalidated) {
      writes.invalidated = true;
      if (writes.state == State.HOLDING) {
        writes.state = State.SETTLED;
        redundant.increment();
      }
    } else if (--writes.unsettled == 0 && !writes.invalidated) {
      if (writes.state == State.HOLDING) {
        invalidate.accept(writes.key);
      } else if (writes.state == State.EXPECTED) {
        expected.remove(writes.wrapped);
      }
      writes.state = State.SETTLED;
    }
    updatePending();
  }

  private enum State {
    /** Waiting for the key's next report. */
    EXPECTED,
    /** The report arrived before any of the writes invalidated; it waits for them. */
    HOLDING,
    SETTLED
  }

  /** The own writes of one key expected since its last report; guarded by the outer lock. */
  private static final class Writes {
    final byte[] key;
    final ByteBuffer wrapped;
    State state = State.EXPECTED;
    int unsettled;

    /** One of them invalidated the key locally: the report is redundant. */
    boolean invalidated;

    long heldSince;

    Writes(byte[] key) {
      this.key = key;
      this.wrapped = ByteBuffer.wrap(key);
    }
  }

  private final class Echo implements OwnWriteEcho {
    private final Writes writes;
    private final AtomicBoolean settled = new AtomicBoolean();

    Echo(Writes writes) {
      this.writes = writes;
    }

    @Override
    public void invalidatedLocally() {
      if (settled.compareAndSet(false, true)) {
        settle(writes, true);
      }
    }

    @Override
    public void cancel() {
      if (settled.compareAndSet(false, true)) {
        settle(writes, false);
      }
    }
  }
}
