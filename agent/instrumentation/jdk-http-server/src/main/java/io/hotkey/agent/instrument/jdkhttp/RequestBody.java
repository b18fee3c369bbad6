package io.hotkey.agent.instrument.jdkhttp;

import com.sun.net.httpserver.HttpExchange;
import io.hotkey.agent.idempotency.BoundedBodies;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;

/**
 * Reads the request body for the fingerprint, remembering what it consumed so it can be put back.
 */
final class RequestBody {
  private static final byte[] EMPTY = new byte[0];

  private final HttpExchange exchange;
  private InputStream original;
  private byte[] consumed = EMPTY;
  private boolean whole;

  RequestBody(HttpExchange exchange) {
    this.exchange = exchange;
  }

  /**
   * Returns the whole body, or null when it is longer than {@code limit} (then only a prefix was
   * read).
   */
  byte[] read(long limit) throws IOException {
    String declared = exchange.getRequestHeaders().getFirst("Content-Length");
    if (declared != null) {
      try {
        if (Long.parseLong(declared.trim()) > limit) {
          return null;
        }
      } catch (NumberFormatException ignored) {
        // the server has rejected or will reject it; read as if undeclared
      }
    }
    original = exchange.getRequestBody();
    ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
    try {
      whole = BoundedBodies.readUpTo(original, limit, buffer);
    } finally {
      consumed = buffer.toByteArray();
    }
    // shared with the handler's replay stream, which only reads it
    return whole ? consumed : null;
  }

  byte[] bytes() {
    return consumed;
  }

  /** Lets the handler read the body as if nobody had touched it. */
  void restore() {
    if (original == null) {
      return;
    }
    InputStream replay = new ByteArrayInputStream(consumed);
    exchange.setStreams(whole ? replay : new SequenceInputStream(replay, original), null);
  }
}
