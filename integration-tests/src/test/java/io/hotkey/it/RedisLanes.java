package io.hotkey.it;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Redis servers for tests that run two at a time ({@code @Execution(CONCURRENT)}): each run takes a
 * server of its own, reset, and hands it back, so what reached Redis ({@code INFO commandstats})
 * and what it holds are that run's alone. A test class registers it as a static extension, which
 * starts the servers before its tests and stops them after.
 */
final class RedisLanes implements BeforeAllCallback, AfterAllCallback {
  /** As many servers as JUnit runs tests at once (junit-platform.properties). */
  private static final int LANES = 2;

  private final BlockingQueue<RedisServer> free = new ArrayBlockingQueue<>(LANES);

  @Override
  public void beforeAll(ExtensionContext context) {
    for (int i = 0; i < LANES; i++) {
      free.add(RedisServers.start());
    }
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
  public void afterAll(ExtensionContext context) {
    RedisServer server;
    while ((server = free.poll()) != null) {
      server.close();
    }
  }
}
