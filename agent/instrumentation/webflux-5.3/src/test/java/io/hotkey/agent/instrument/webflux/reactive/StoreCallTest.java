package io.hotkey.agent.instrument.webflux.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.instrument.webflux.WebFluxBridge;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Where a store call runs, and that one that throws (even a LinkageError, which Reactor rethrows on
 * the thread instead of signalling it, so the request would never answer) still completes.
 */
class StoreCallTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final AgentErrors errors = new AgentErrors(0);

  @BeforeEach
  void recordErrors() {
    WebFluxBridge.activate(null, errors);
  }

  @AfterEach
  void deactivate() {
    WebFluxBridge.deactivate();
  }

  @Test
  void aStoreThatMayBlockIsCalledOnAStoreThreadAndTheRequestStaysThere() {
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    Thread continuedOn =
        IdempotentExchange.storeCall(ran(() -> ranOn.set(Thread.currentThread())), true)
            .then(Mono.fromSupplier(Thread::currentThread))
            .block(WAIT);
    assertTrue(ranOn.get().getName().startsWith("hotkey-idempotency-store-"), ranOn.get()::getName);
    assertEquals(ranOn.get(), continuedOn, "no hand-off back after the call");

    AtomicReference<Thread> secondOn = new AtomicReference<>();
    Thread first =
        IdempotentExchange.storeCall(ran(() -> {}), true)
            .then(
                Mono.defer(
                    () -> {
                      Thread here = Thread.currentThread();
                      return IdempotentExchange.storeCall(
                              ran(() -> secondOn.set(Thread.currentThread())), true)
                          .thenReturn(here);
                    }))
            .block(WAIT);
    assertEquals(first, secondOn.get(), "a call from a store thread runs inline");
  }

  /**
   * A thread made on a store thread (Reactor's parallel scheduler, when a handler running there
   * uses it first) is not one: a store call there would block it.
   */
  @Test
  void aThreadMadeOnAStoreThreadIsNotOne() {
    AtomicReference<Boolean> onStoreThread = new AtomicReference<>();
    AtomicReference<Boolean> inChild = new AtomicReference<>();
    IdempotentExchange.storeCall(
            ran(
                () -> {
                  onStoreThread.set(IdempotentExchange.isStoreThread());
                  Thread child = new Thread(() -> inChild.set(IdempotentExchange.isStoreThread()));
                  child.start();
                  try {
                    child.join();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }),
            true)
        .block(WAIT);
    assertTrue(onStoreThread.get());
    assertFalse(inChild.get());
  }

  @Test
  void aStoreThatNeverBlocksIsCalledInline() {
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    IdempotentExchange.storeCall(ran(() -> ranOn.set(Thread.currentThread())), false).block(WAIT);
    assertEquals(Thread.currentThread(), ranOn.get());
    assertFalse(IdempotentExchange.isStoreThread());
  }

  @Test
  void aLinkageErrorOnAStoreThreadCompletesTheCallAndIsRecorded() {
    for (boolean blocks : new boolean[] {true, false}) {
      long before = errors.count();
      IdempotentExchange.storeCall(
              () -> {
                throw new NoSuchMethodError("ServerHttpResponse.getRawStatusCode()");
              },
              blocks)
          .block(WAIT);
      assertEquals(before + 1, errors.count(), "recorded as the agent's error");
      IdempotentExchange.storeCall(
              () ->
                  CompletableFuture.failedFuture(
                      new NoSuchMethodError("ServerHttpResponse.getRawStatusCode()")),
              blocks)
          .block(WAIT);
      assertEquals(before + 2, errors.count(), "a failed stage too");
    }
  }

  /** A store call that does its work on the thread calling it, done when it returns. */
  private static Supplier<CompletionStage<Void>> ran(Runnable work) {
    return () -> {
      work.run();
      return CompletableFuture.completedFuture(null);
    };
  }
}
