package io.hotkey.agent.bench;

import io.hotkey.agent.detect.HotKeyDetector;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** Ticks a benchmark's detector every 100 ms on a daemon thread, as the agent's scheduler does. */
final class DetectorTicker implements AutoCloseable {
  private final ScheduledExecutorService ticker =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "detector-tick");
            t.setDaemon(true);
            return t;
          });

  DetectorTicker(HotKeyDetector detector) {
    Future<?> unused = ticker.scheduleAtFixedRate(detector::tick, 100, 100, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    ticker.shutdownNow();
    ticker.awaitTermination(5, TimeUnit.SECONDS);
  }
}
