package io.hotkey.agent.instrument.servlet.jakarta;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import java.io.IOException;

/**
 * The request body as the application reads it: the buffered bytes, then whatever the container
 * still has.
 */
public final class BufferedInput extends ServletInputStream {
  private final byte[] head;
  private final ServletInputStream rest;
  private int position;

  BufferedInput(byte[] head, ServletInputStream rest) {
    this.head = head;
    this.rest = rest;
  }

  @Override
  public int read() throws IOException {
    if (position < head.length) {
      return head[position++] & 0xff;
    }
    return rest == null ? -1 : rest.read();
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    if (position < head.length) {
      int n = Math.min(length, head.length - position);
      System.arraycopy(head, position, buffer, offset, n);
      position += n;
      return n;
    }
    return rest == null ? -1 : rest.read(buffer, offset, length);
  }

  @Override
  public int available() throws IOException {
    return head.length - position + (rest == null ? 0 : rest.available());
  }

  @Override
  public boolean isFinished() {
    return position >= head.length && (rest == null || rest.isFinished());
  }

  @Override
  public boolean isReady() {
    return position < head.length || rest == null || rest.isReady();
  }

  /**
   * Non-blocking reads: with nothing buffered the container's stream is used as is; with a buffered
   * body the listener is told at once that everything is available (the body is already in memory).
   */
  @Override
  public void setReadListener(ReadListener listener) {
    if (position == 0 && head.length == 0 && rest != null) {
      rest.setReadListener(listener);
      return;
    }
    try {
      listener.onDataAvailable();
      if (rest == null) {
        listener.onAllDataRead();
      } else {
        rest.setReadListener(listener);
      }
    } catch (IOException | RuntimeException e) {
      listener.onError(e);
    }
  }
}
