package io.hotkey.agent.detect;

import java.time.Duration;
import java.util.function.LongSupplier;

/** A nano clock moved by the test. */
final class FakeClock implements LongSupplier {
  private volatile long now = 1_000_000_000L;

  @Override
  public long getAsLong() {
    return now;
  }

  synchronized void advance(Duration d) {
    now += d.toNanos();
  }
}
