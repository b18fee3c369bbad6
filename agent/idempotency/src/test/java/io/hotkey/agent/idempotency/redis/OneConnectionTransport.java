package io.hotkey.agent.idempotency.redis;

import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A {@link RespTransport} over one real connection, answering on the caller's thread, which keeps
 * the name of every command it sent; a broken connection fails the stage, as an event loop's does.
 */
final class OneConnectionTransport implements RespTransport, AutoCloseable {
  private final RespConnection connection;
  final List<String> sent = new ArrayList<>();

  OneConnectionTransport(RedisEndpoint endpoint) throws IOException {
    connection = new RespConnection(endpoint, 1000, 2000);
  }

  @Override
  public synchronized CompletionStage<Object> send(byte[][] command) {
    sent.add(new String(command[0], StandardCharsets.US_ASCII));
    try {
      return CompletableFuture.completedFuture(connection.call(command));
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public void close() {
    connection.close();
  }
}
