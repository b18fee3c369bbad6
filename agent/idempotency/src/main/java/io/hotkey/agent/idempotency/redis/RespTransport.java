package io.hotkey.agent.idempotency.redis;

import java.util.concurrent.CompletionStage;

/**
 * A connection to the store's Redis that answers later (a server's event loop, say): it sends
 * commands in order and completes each stage with its reply, decoded as {@link
 * io.hotkey.agent.redis.resp.RespConnection} decodes, or fails it with an {@link
 * java.io.IOException} when the connection breaks, cannot be made or the reply is late.
 */
public interface RespTransport {
  CompletionStage<Object> send(byte[][] command);
}
