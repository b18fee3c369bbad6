package io.hotkey.agent.instrument.webflux;

import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.idempotency.redis.RedisRecordStore;
import io.hotkey.agent.idempotency.store.AsyncRecordStore;
import io.hotkey.agent.idempotency.store.MemoryRecordStore;
import io.hotkey.agent.instrument.HelperClasses;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The seam between Spring WebFlux and the agent, in the system class loader so that the advice
 * inlined into {@code HttpWebHandlerAdapter} ({@link WebFluxAdvice}) and {@code DispatcherHandler}
 * ({@link WebFluxDispatchAdvice}) and the helpers injected next to Spring's reactive web API all
 * reach it.
 *
 * <p>The helpers (the {@code reactive/} subpackage) extend Spring's request and response decorators
 * and use Reactor, which only the application's loader sees: on the first request of an application
 * they are defined next to {@code ServerHttpRequestDecorator} ({@link HelperClasses}, as {@code
 * org.springframework.http.server.reactive.HotkeyAgent*}).
 *
 * <p>An event-loop thread never waits for the store. The in-memory one answers without I/O, on the
 * loop. The redis store is called on Reactor Netty over a pipelined connection of the loop serving
 * the request ({@code netty/}, helpers defined next to the application's Netty), so the request
 * never changes thread; elsewhere (another server, TLS, a login) its blocking calls run on the
 * helpers' own bounded Reactor scheduler, and the request carries on there ({@code
 * IdempotentExchange}).
 */
public final class WebFluxBridge {
  static final List<String> HELPERS =
      List.of("WebFluxRequestHead", "BufferedRequest", "CapturingResponse", "IdempotentExchange");

  static final String HELPER_PACKAGE = "io/hotkey/agent/instrument/webflux/reactive/";

  static final HelperClasses HELPER_CLASSES =
      new HelperClasses(
          "org.springframework.http.server.reactive.ServerHttpRequestDecorator",
          HELPER_PACKAGE,
          HELPERS);

  static final String NETTY_PACKAGE = "io/hotkey/agent/instrument/webflux/netty/";

  /**
   * The redis store's connections on the server's event loops: defined next to Netty (a class of it
   * the anchor), apart from the WebFlux helpers, so that a reactive server without Netty still gets
   * those.
   */
  static final HelperClasses NETTY_HELPER_CLASSES =
      new HelperClasses(
          "io.netty.channel.Channel",
          NETTY_PACKAGE,
          List.of("PendingCommand", "EventLoopRedis", "LoopConnections", "NettyEventLoopStores"));

  /** The Netty helpers of the loader of a server's native request, when it has Netty. */
  private static final ClassValue<Optional<EventLoopStores>> EVENT_LOOP_STORES =
      new ClassValue<Optional<EventLoopStores>>() {
        @Override
        protected Optional<EventLoopStores> computeValue(Class<?> nativeRequest) {
          ClassLoader loader = nativeRequest.getClassLoader();
          try {
            Class.forName("io.netty.channel.Channel", false, loader);
          } catch (ClassNotFoundException e) {
            return Optional.empty(); // not Netty: store calls leave the server's threads
          }
          try {
            return Optional.of(
                (EventLoopStores)
                    NETTY_HELPER_CLASSES.injectInto(loader).getDeclaredConstructor().newInstance());
          } catch (Throwable t) {
            error(
                "injecting the Netty helpers into "
                    + loader
                    + " (redis store calls leave the event loop)",
                t);
            return Optional.empty();
          }
        }
      };

  /** Set while a helper calls the adapter itself: that call runs untouched. */
  private static final ThreadLocal<Boolean> NESTED = new ThreadLocal<>();

  private static volatile IdempotencyEngine engine;
  private static volatile AgentErrors errors = new AgentErrors(0);

  /** The helpers of the loader of a Spring class the advice is in (the adapter, the dispatcher). */
  private static final ClassValue<Optional<WebFluxHelper>> HELPER_BY_CLASS =
      new ClassValue<Optional<WebFluxHelper>>() {
        @Override
        protected Optional<WebFluxHelper> computeValue(Class<?> spring) {
          ClassLoader loader = spring.getClassLoader();
          try {
            return Optional.of(
                (WebFluxHelper)
                    HELPER_CLASSES.injectInto(loader).getDeclaredConstructor().newInstance());
          } catch (Throwable t) {
            error(
                "injecting the WebFlux helpers into "
                    + loader
                    + " (its requests pass through untouched)",
                t);
            return Optional.empty();
          }
        }
      };

  private WebFluxBridge() {}

  /** Makes every instrumented WebFlux application use this engine. */
  public static void activate(IdempotencyEngine active, AgentErrors agentErrors) {
    errors = agentErrors;
    engine = active;
  }

  /** Instrumented applications pass everything through from now on. */
  public static void deactivate() {
    engine = null;
  }

  // ---------------------------------------------------------------- called by the inlined advice

  /**
   * Returns the {@code Mono<Void>} that handles the request instead of the adapter, or null to let
   * the adapter run untouched.
   */
  public static Object enter(Object adapter, Object request, Object response) {
    if (engine == null
        || NESTED.get() != null
        || adapter == null
        || request == null
        || response == null
        || adapter.getClass().getClassLoader() == null) {
      return null;
    }
    try {
      Optional<WebFluxHelper> helper = HELPER_BY_CLASS.get(adapter.getClass());
      return helper.isPresent() ? helper.get().handle(adapter, request, response) : null;
    } catch (Throwable t) {
      error("entering a request", t);
      return null;
    }
  }

  /**
   * Returns the {@code Mono<Void>} that handles the exchange instead of the dispatcher, or null to
   * let the dispatcher run untouched. Not subject to {@link #nested}: a helper's own call of the
   * dispatcher finds its request decided already.
   */
  public static Object dispatch(Object dispatcher, Object exchange) {
    if (engine == null
        || dispatcher == null
        || exchange == null
        || dispatcher.getClass().getClassLoader() == null) {
      return null;
    }
    try {
      Optional<WebFluxHelper> helper = HELPER_BY_CLASS.get(dispatcher.getClass());
      return helper.isPresent() ? helper.get().dispatch(dispatcher, exchange) : null;
    } catch (Throwable t) {
      error("dispatching a request", t);
      return null;
    }
  }

  // ---------------------------------------------------------------- called by the injected helpers

  /** The engine requests are decided by, or null once the agent is deactivated. */
  public static IdempotencyEngine engine() {
    return engine;
  }

  /** Runs {@code call} (the helper calling the adapter itself) without the agent taking it. */
  public static <T> T nested(Supplier<T> call) {
    NESTED.set(Boolean.TRUE);
    try {
      return call.get();
    } finally {
      NESTED.remove();
    }
  }

  /**
   * Calls to the engine's redis store over a connection of the event loop serving {@code
   * nativeRequest}, whose replies arrive on that loop; null for another store, a server without
   * Netty, or an endpoint these connections do not serve (the caller then uses the blocking store
   * off the event loop).
   */
  public static AsyncRecordStore eventLoopCalls(
      IdempotencyEngine active, Object nativeRequest, Executor blockingCalls) {
    if (!(active.store() instanceof RedisRecordStore)
        || nativeRequest == null
        || nativeRequest.getClass().getClassLoader() == null) {
      return null;
    }
    Optional<EventLoopStores> stores = EVENT_LOOP_STORES.get(nativeRequest.getClass());
    return stores.isPresent()
        ? stores.get().forRequest(nativeRequest, (RedisRecordStore) active.store(), blockingCalls)
        : null;
  }

  /** Whether calls to this engine's store may wait on I/O, and so must leave the event loop. */
  public static boolean storeBlocks(IdempotencyEngine active) {
    return !(active.store() instanceof MemoryRecordStore);
  }

  public static void error(String where, Throwable error) {
    errors.record("webflux idempotency " + where, error);
  }
}
