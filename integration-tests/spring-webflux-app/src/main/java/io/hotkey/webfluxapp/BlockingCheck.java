package io.hotkey.webfluxapp;

import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * Reactor's BlockHound, when the test starts the application with {@value #PROPERTY}{@code =true}
 * (on JDK 13 and later also {@code -XX:+AllowRedefinitionToAddDeleteMethods}): a blocking call on a
 * thread that must not block (Reactor Netty's event loops, Reactor's parallel scheduler) is printed
 * to stderr as a line starting with {@value #BLOCKED}, with its stack, and then fails as BlockHound
 * fails it. The line is what the test looks for, since the agent swallows any error thrown inside
 * its own code and the request might otherwise still succeed.
 */
final class BlockingCheck {
  static final String PROPERTY = "webflux-app.blockhound";
  static final String BLOCKED = "[blockhound] blocking call";

  private BlockingCheck() {}

  static void installIfAsked() {
    if (!Boolean.getBoolean(PROPERTY)) {
      return;
    }
    // install(...) also applies the integrations on the class path (Reactor's, Spring's)
    BlockHound.install(
        builder ->
            builder.blockingMethodCallback(
                method -> {
                  BlockingOperationError error = new BlockingOperationError(method);
                  System.err.println(
                      BLOCKED + " on " + Thread.currentThread().getName() + ": " + method);
                  error.printStackTrace();
                  throw error;
                }));
    System.err.println("[blockhound] installed");
  }
}
