package io.hotkey.agent.tracking;

import io.hotkey.agent.redis.resp.RespConnection;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The {@link InvalidationDrain}s of every open tracking session, and the question a hit asks of
 * them before it is served: has every report received more than {@link #BUDGET_NANOS} ago been
 * applied? A drain older than that is drained by the asking thread, so a report waits for no
 * scheduler: at most the budget plus the time a running thread takes to read it.
 */
final class InvalidationDrains {
  /**
   * How old the last drain may be before a hit drains itself: a non-blocking read of an empty
   * socket costs about a microsecond, so at most one per millisecond is nothing, and a millisecond
   * is well inside the 5 ms a report may take to be applied at full CPU.
   */
  static final long BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final LongSupplier clock;
  private final LongAdder helped = new LongAdder();
  private final LongAdder notCaughtUp = new LongAdder();
  private volatile InvalidationDrain[] open = new InvalidationDrain[0];

  InvalidationDrains(LongSupplier clock) {
    this.clock = clock;
  }

  /** Drains {@code connection} from now on (see {@link InvalidationDrain}); not reading yet. */
  InvalidationDrain open(RespConnection connection, InvalidationDrain.Messages messages)
      throws IOException {
    InvalidationDrain drain = new InvalidationDrain(connection, messages, clock, helped);
    synchronized (this) {
      InvalidationDrain[] now = Arrays.copyOf(open, open.length + 1);
      now[open.length] = drain;
      open = now;
    }
    return drain;
  }

  /** Stops {@code drain}, which hits no longer ask. */
  void close(InvalidationDrain drain) {
    drain.close();
    synchronized (this) {
      InvalidationDrain[] now = new InvalidationDrain[open.length];
      int kept = 0;
      for (InvalidationDrain other : open) {
        if (other != drain) {
          now[kept++] = other;
        }
      }
      open = Arrays.copyOf(now, kept);
    }
  }

  /**
   * Whether a hit may be served at {@code nowNanos} (on this clock): every drain caught up within
   * the budget, draining on this thread where needed. False when another thread is draining a
   * connection this one would have drained: the read then goes to Redis rather than wait.
   */
  boolean caughtUp(long nowNanos) {
    InvalidationDrain[] drains = open;
    if (drains.length == 0) {
      return true;
    }
    for (InvalidationDrain drain : drains) {
      if (!drain.caughtUp(nowNanos, BUDGET_NANOS)) {
        notCaughtUp.increment();
        return false;
      }
    }
    return true;
  }

  /** Messages (reports, replies) that threads about to serve a hit read and applied. */
  long helped() {
    return helped.sum();
  }

  /** Reads sent to Redis because another thread was draining a connection overdue. */
  long notCaughtUp() {
    return notCaughtUp.sum();
  }
}
