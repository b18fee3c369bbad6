package io.hotkey.agent.instrument.webflux.netty;

import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.CompletableFuture;

/**
 * A command sent (or waiting for the connection) on an {@link EventLoopRedis}: its reply to come.
 */
final class PendingCommand {
  final CompletableFuture<Object> reply = new CompletableFuture<>();

  /** Drops the connection if the reply is late; set when the command is queued. */
  ScheduledFuture<?> timeout;
}
