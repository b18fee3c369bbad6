package io.hotkey.agent.instrument.webflux;

import io.hotkey.agent.idempotency.redis.RedisRecordStore;
import io.hotkey.agent.idempotency.store.AsyncRecordStore;
import java.util.concurrent.Executor;

/**
 * The redis store reached from the event loop serving a request, implemented by the helpers
 * injected next to the application's Netty ({@code netty/}); typed here, in the system class
 * loader, so that the WebFlux helpers reach it without seeing Netty.
 */
public interface EventLoopStores {
  /**
   * Calls to {@code store} over a connection of the event loop that serves {@code nativeRequest}
   * (Reactor Netty's request), whose replies arrive on that loop; null when the request has no such
   * loop or the store's endpoint needs what these connections do not do (TLS, a login, a database
   * other than 0): the caller then uses the blocking store off the event loop.
   *
   * @param blockingCalls where a call that needs the blocking client (a cluster's redirection, a
   *     host name to resolve) runs
   */
  AsyncRecordStore forRequest(Object nativeRequest, RedisRecordStore store, Executor blockingCalls);
}
