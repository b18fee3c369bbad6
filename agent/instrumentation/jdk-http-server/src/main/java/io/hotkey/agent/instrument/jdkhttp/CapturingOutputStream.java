package io.hotkey.agent.instrument.jdkhttp;

import com.sun.net.httpserver.HttpExchange;
import io.hotkey.agent.idempotency.BodyCapture;
import io.hotkey.agent.idempotency.Execution;
import io.hotkey.agent.idempotency.ReleaseReason;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Wraps the exchange's response stream for an execution: every byte goes to the client as written,
 * and a copy (up to max-body) is kept. The response is complete, and handed to the engine, when
 *
 * <ul>
 *   <li>a fixed-length body ({@code Content-length: n}) has received its n-th byte: the record is
 *       stored just before those last bytes go out, so a client that has the whole response always
 *       finds it;
 *   <li>a chunked (or HTTP/1.0 undefined-length) body's stream is closed: again stored before the
 *       close;
 *   <li>a body-less response (204, 304, length -1) was sent and the handler returned.
 * </ul>
 *
 * A handler that returns without sending anything (it answers later from another thread) is
 * followed until the stream is closed; if it never is, the claim blocks the key until its lease
 * ends. A handler exception before the end, or a body larger than max-body, releases the claim.
 */
final class CapturingOutputStream extends OutputStream {
  private static final long UNKNOWN = -2;
  private static final long UNTIL_CLOSE = -1;

  private final HttpExchange exchange;
  private final OutputStream delegate;
  private final Execution execution;
  private final BodyCapture capture;
  private long expected = UNKNOWN;

  CapturingOutputStream(HttpExchange exchange, OutputStream delegate, Execution execution) {
    this.exchange = exchange;
    this.delegate = delegate;
    this.execution = execution;
    this.capture = new BodyCapture(execution.maxBody());
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    if (!execution.ended()) {
      try {
        observe(bytes, offset, length);
      } catch (Throwable t) {
        IdempotencyFilters.recordError("capturing a response", t);
        execution.fail(ReleaseReason.AGENT_ERROR);
      }
    }
    delegate.write(bytes, offset, length);
  }

  private synchronized void observe(byte[] bytes, int offset, int length) {
    if (exchange.getResponseCode() == -1) {
      return; // headers not sent: the server rejects the write itself
    }
    if (expected == UNKNOWN) {
      expected = expectedLength();
    }
    capture.append(bytes, offset, length);
    if (expected >= 0 && capture.total() >= expected) {
      end(capture.total() == expected);
    }
  }

  @Override
  public void flush() throws IOException {
    delegate.flush();
  }

  @Override
  public void close() throws IOException {
    if (!execution.ended()) {
      try {
        synchronized (this) {
          if (exchange.getResponseCode() == -1) {
            execution.fail(ReleaseReason.NO_RESPONSE);
          } else {
            if (expected == UNKNOWN) {
              expected = expectedLength();
            }
            end(expected < 0 || capture.total() == expected);
          }
        }
      } catch (Throwable t) {
        IdempotencyFilters.recordError("completing a response", t);
        execution.fail(ReleaseReason.AGENT_ERROR);
      }
    }
    delegate.close();
  }

  /** The handler threw: unless its response was already complete, release the claim. */
  void handlerFailed() {
    execution.fail(ReleaseReason.HANDLER_THREW);
  }

  /** The handler returned: a body-less response is complete now; others end with their stream. */
  synchronized void handlerReturned() {
    if (execution.ended()) {
      return;
    }
    try {
      if (exchange.getResponseCode() == -1) {
        return; // answered asynchronously (or never): followed until close, bounded by the lease
      }
      if (expected == UNKNOWN) {
        expected = expectedLength();
      }
      if (expected == 0 && capture.total() == 0) {
        end(true);
      }
    } catch (Throwable t) {
      IdempotencyFilters.recordError("completing a response", t);
      execution.fail(ReleaseReason.AGENT_ERROR);
    }
  }

  private long expectedLength() {
    String encoding = exchange.getResponseHeaders().getFirst("Transfer-encoding");
    if (encoding != null && encoding.toLowerCase(java.util.Locale.ROOT).contains("chunked")) {
      return UNTIL_CLOSE;
    }
    String length = exchange.getResponseHeaders().getFirst("Content-length");
    if (length != null) {
      return Long.parseLong(length.trim());
    }
    int status = exchange.getResponseCode();
    if (status < 200
        || status == 204
        || status == 304
        || "HEAD".equalsIgnoreCase(exchange.getRequestMethod())) {
      return 0;
    }
    return UNTIL_CLOSE;
  }

  private void end(boolean whole) {
    byte[] body = capture.bytes();
    execution.finish(
        exchange.getResponseCode(),
        IdempotencyFilter.headerList(exchange.getResponseHeaders()),
        body == null ? new byte[0] : body,
        whole && body != null);
  }
}
