package io.hotkey.it;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Redis servers for tests that run two at a time ({@code @Execution(CONCURRENT)}): each run takes a
 * server of its own, reset, and hands it back, so what reached Redis ({@code INFO commandstats})
 * and what it holds are that run's alone.
 */
final class RedisLanes implements AutoCloseable {
  private final BlockingQueue<RedisServer> free;

  private RedisLanes(int lanes) {
    free = new ArrayBlockingQueue<>(lanes);
    for (int i = 0; i < lanes; i++) {
      free.add(RedisServers.start());
    }
  }

  /** As many servers as JUnit runs tests at once (junit-platform.properties). */
  static RedisLanes start() {
    return new RedisLanes(2);
  }

  /** Runs {@code test} on a free server, reset first, and hands the server back after. */
  void onFreeServer(Consumer<RedisServer> test) throws InterruptedException {
    fromFreeServer(
        server -> {
          test.accept(server);
          return null;
        });
  }

  /** What {@code run} returns, run on a free server, reset first, and handed back after. */
  <T> T fromFreeServer(Function<RedisServer, T> run) throws InterruptedException {
    RedisServer server = free.take();
    try {
      server.reset();
      return run.apply(server);
    } finally {
      free.add(server);
    }
  }

  @Override
  public void close() {
    RedisServer server;
    while ((server = free.poll()) != null) {
      server.close();
    }
  }
}
