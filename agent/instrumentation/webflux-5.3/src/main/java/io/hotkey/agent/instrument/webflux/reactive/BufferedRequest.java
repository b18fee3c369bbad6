package io.hotkey.agent.instrument.webflux.reactive;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import reactor.core.publisher.Flux;

/** The request as received, with the body the agent read for the fingerprint handed on. */
public final class BufferedRequest extends ServerHttpRequestDecorator {
  private static final DefaultDataBufferFactory BUFFERS = new DefaultDataBufferFactory();

  private final byte[] body;

  BufferedRequest(ServerHttpRequest request, byte[] body) {
    super(request);
    this.body = body;
  }

  @Override
  public Flux<DataBuffer> getBody() {
    return body.length == 0 ? Flux.empty() : Flux.defer(() -> Flux.just(BUFFERS.wrap(body)));
  }
}
