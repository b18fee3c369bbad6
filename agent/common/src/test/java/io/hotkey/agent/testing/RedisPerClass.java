package io.hotkey.agent.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link RedisProcess} for one test class, started before its first test and stopped after its
 * last: {@code @RegisterExtension static final RedisPerClass redis = new RedisPerClass();}.
 */
public final class RedisPerClass implements BeforeAllCallback, AfterAllCallback {
  private RedisProcess process;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    process = RedisProcess.start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (process != null) {
      process.close();
    }
  }

  /** The running server, to pause, kill or restart. */
  public RedisProcess process() {
    return process;
  }

  public int port() {
    return process.port();
  }
}
