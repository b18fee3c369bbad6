package io.hotkey.it.app;

import java.io.UncheckedIOException;

/**
 * Sets a key to step after step around the agent, on a raw connection (what another instance of the
 * service is to this one), and rides out Redis going away: a SET that fails, or that Redis answers
 * with an error (e.g. {@code LOADING} while it reads its data back), is sent again on a new
 * connection until Redis acknowledges it. A step is therefore acknowledged exactly once, and a step
 * Redis applied without the acknowledgement arriving is simply set again.
 */
final class StepWriter implements AutoCloseable {
  private static final long RETRY_MILLIS = 10;
  private static final long GIVE_UP_MILLIS = 60_000;

  private final String host;
  private final int port;
  private final String key;
  private RawRedis connection;
  private long failures;

  StepWriter(String host, int port, String key) {
    this.host = host;
    this.port = port;
    this.key = key;
  }

  /** Returns once Redis acknowledged {@code SET key step}; fails after a minute of trying. */
  void set(int step) throws InterruptedException {
    long start = System.nanoTime();
    Object reply = null;
    while (System.nanoTime() - start < GIVE_UP_MILLIS * 1_000_000) {
      try {
        if (connection == null) {
          connection = new RawRedis(host, port);
        }
        reply = connection.call("SET", key, Integer.toString(step));
        if ("OK".equals(reply)) {
          return;
        }
      } catch (UncheckedIOException e) {
        reply = e;
        close();
      }
      failures++;
      Thread.sleep(RETRY_MILLIS);
    }
    throw new IllegalStateException("SET " + key + " " + step + " never acknowledged: " + reply);
  }

  /** The SETs that failed and were sent again. */
  long failures() {
    return failures;
  }

  @Override
  public void close() {
    RawRedis broken = connection;
    connection = null;
    if (broken != null) {
      broken.close();
    }
  }
}
