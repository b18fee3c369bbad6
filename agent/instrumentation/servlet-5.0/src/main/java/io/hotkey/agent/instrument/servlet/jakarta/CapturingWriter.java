package io.hotkey.agent.instrument.servlet.jakarta;

import java.io.PrintWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;

/**
 * The container's writer with a copy of every character, encoded in the response's charset as the
 * container encodes it, taken before it is written. A high surrogate at the end of one write waits
 * for its pair in the next.
 */
public final class CapturingWriter extends Writer {
  private final PrintWriter real;
  private final ResponseWrapper response;
  private final CharsetEncoder encoder;
  private char pendingHigh;

  CapturingWriter(PrintWriter real, ResponseWrapper response, Charset charset) {
    this.real = real;
    this.response = response;
    this.encoder =
        charset
            .newEncoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
  }

  @Override
  public void write(char[] chars, int offset, int length) {
    capture(CharBuffer.wrap(chars, offset, length));
    real.write(chars, offset, length);
  }

  @Override
  public void write(String text, int offset, int length) {
    capture(CharBuffer.wrap(text, offset, offset + length));
    real.write(text, offset, length);
  }

  @Override
  public void write(int c) {
    capture(CharBuffer.wrap(new char[] {(char) c}));
    real.write(c);
  }

  private void capture(CharBuffer chars) {
    if (!chars.hasRemaining()) {
      return;
    }
    try {
      CharBuffer input = chars;
      if (pendingHigh != 0) {
        input = CharBuffer.allocate(chars.remaining() + 1);
        input.put(pendingHigh).put(chars).flip();
        pendingHigh = 0;
      }
      char last = input.get(input.limit() - 1);
      if (Character.isHighSurrogate(last)) {
        pendingHigh = last;
        input.limit(input.limit() - 1);
      }
      ByteBuffer out =
          ByteBuffer.allocate(
              (int) Math.ceil(input.remaining() * (double) encoder.maxBytesPerChar()) + 8);
      encoder.reset();
      CoderResult result = encoder.encode(input, out, true);
      if (result.isOverflow()) {
        response.uncaptured();
        return;
      }
      encoder.flush(out);
      out.flip();
      if (out.hasRemaining()) {
        response.captured(out.array(), 0, out.limit());
      }
    } catch (RuntimeException e) {
      response.uncaptured();
    }
  }

  @Override
  public void flush() {
    real.flush();
  }

  @Override
  public void close() {
    response.closing();
    real.close();
  }
}
