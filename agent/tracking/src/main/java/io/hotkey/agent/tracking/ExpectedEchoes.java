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
 * that arrives while own writes of it are expected is held until one of them is about to invalidate
 * the key locally, or all of them failed, or it has been held {@link #HOLD_MILLIS}; it is then
 * applied. Every other report is applied as it arrives.
 *
 * <p>Why: Redis writes an own write's report around the time it writes its reply, so the report
 * usually arrives while the write's reply is still being read. Applied then, it drops the key's
 * entry and sends the key's readers to Redis until the write's own invalidation; held, the entry
 * serves them until that moment, when both invalidations run together. Either way a fill stamped
 * before that moment dies and one stamped after it survives.
 *
 * <p>No report is ever dropped: one report may stand for several writes of an event-loop iteration,
 * another client's just after the application's among them, so it may carry news the write's own
 * invalidation does not. Applying it also keeps a value the application wrote from being stored as
 * the key's entry ({@code SetRun}) when another invalidation came with it. Holding costs the key's
 * freshness the time the write takes to return: microseconds on loopback, {@link #HOLD_MILLIS} at
 * most (one whose reply is never read).
 *
 * <p>Expectations are made only for keys whose registration Redis acknowledged, and dropped with
 * the session that would deliver their reports, so that a report is held only when one is coming.
 */
final class ExpectedEchoes {
  /** Keys expected at most: an abandoned connection may leave some unsettled. */
  static final int MAX_KEYS = 4096;

  /** Own writes of one key expected at most together. */
  static final int MAX_WRITES_PER_KEY = 256;

  /**
   * The longest a report waits for its writes to settle (one whose reply is never read: a pipeline
   * abandoned without closing its connection), checked at each report and by the tracker's {@link
   * #expireHeld} ticks.
   */
  static final long HOLD_MILLIS = 50;

  private static final long HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(HOLD_MILLIS);

  /** Own writes of a key expected since its last report, by key. */
  private final Map<ByteBuffer, Writes> expected = new HashMap<>();

  /** Writes holding their key's report, oldest first (some may have settled since). */
  private final ArrayDeque<Writes> holding = new ArrayDeque<>();

  private final Consumer<byte[]> invalidate;
  private final LongSupplier nanoClock;
  private final LongAdder held = new LongAdder();

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
      writes.state = State.HOLDING;
      writes.heldSince = now;
      holding.addLast(writes);
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

  /** Reports held for an own write of their key and applied with its invalidation. */
  long held() {
    return held.sum();
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

  private synchronized void settle(Writes writes, boolean invalidating) {
    if (invalidating && writes.state == State.HOLDING) {
      writes.state = State.SETTLED;
      held.increment();
      invalidate.accept(writes.key);
    } else if (--writes.unsettled == 0) {
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
    /** The key's report arrived; it waits for one of the writes to invalidate or all to fail. */
    HOLDING,
    SETTLED
  }

  /** The own writes of one key expected since its last report; guarded by the outer lock. */
  private static final class Writes {
    final byte[] key;
    final ByteBuffer wrapped;
    State state = State.EXPECTED;
    int unsettled;

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
    public void invalidatingLocally() {
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
