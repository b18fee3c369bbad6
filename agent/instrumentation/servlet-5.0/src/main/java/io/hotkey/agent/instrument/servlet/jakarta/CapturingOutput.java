package io.hotkey.agent.instrument.servlet.jakarta;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import java.io.IOException;

/**
 * The container's output stream with a copy of every byte taken (before it is written) for the
 * record.
 */
public final class CapturingOutput extends ServletOutputStream {
  private final ServletOutputStream real;
  private final ResponseWrapper response;

  CapturingOutput(ServletOutputStream real, ResponseWrapper response) {
    this.real = real;
    this.response = response;
  }

  @Override
  public void write(int b) throws IOException {
    response.captured(new byte[] {(byte) b}, 0, 1);
    real.write(b);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    response.captured(bytes, offset, length);
    real.write(bytes, offset, length);
  }

  @Override
  public void flush() throws IOException {
    real.flush();
  }

  @Override
  public void close() throws IOException {
    response.closing();
    real.close();
  }

  @Override
  public boolean isReady() {
    return real.isReady();
  }

  /** Non-blocking writes happen after the call returns: not captured, not stored. */
  @Override
  public void setWriteListener(WriteListener listener) {
    response.uncaptured();
    real.setWriteListener(listener);
  }
}
