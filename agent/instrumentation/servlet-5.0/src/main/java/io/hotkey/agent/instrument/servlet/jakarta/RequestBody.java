package io.hotkey.agent.instrument.servlet.jakarta;

import io.hotkey.agent.idempotency.BoundedBodies;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * Reads the request body for the fingerprint, remembering what it consumed so it can be put back.
 */
public final class RequestBody implements IdempotencyEngine.BodySource {
  private static final byte[] EMPTY = new byte[0];

  private final HttpServletRequest request;
  private ServletInputStream original;
  private byte[] consumed = EMPTY;
  private boolean whole;

  RequestBody(HttpServletRequest request) {
    this.request = request;
  }

  /**
   * @return the whole body, or null when it is longer than {@code limit} (then only a prefix was
   *     read)
   */
  @Override
  public byte[] read(long limit) throws IOException {
    if (request.getContentLengthLong() > limit) {
      return null;
    }
    original = request.getInputStream();
    ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
    try {
      whole = BoundedBodies.readUpTo(original, limit, buffer);
      return whole ? buffer.toByteArray() : null;
    } finally {
      consumed = buffer.toByteArray();
    }
  }

  /** Whether the container's stream was taken: the application must then read through a wrapper. */
  boolean touched() {
    return original != null;
  }

  boolean whole() {
    return whole;
  }

  byte[] consumed() {
    return consumed;
  }

  /** The container's stream, to read on after {@link #consumed()}; null when nothing is left. */
  ServletInputStream rest() {
    return whole ? null : original;
  }
}
