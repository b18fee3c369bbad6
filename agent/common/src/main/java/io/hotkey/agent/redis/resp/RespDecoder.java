package io.hotkey.agent.redis.resp;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes RESP2 and RESP3 replies from a stream, as {@link RespConnection} describes them; shared
 * by a blocking connection and by a reader that decodes bytes it already took from a socket.
 */
public final class RespDecoder {
  private static final int MAX_BULK = 512 * 1024 * 1024;

  private final InputStream in;

  public RespDecoder(InputStream in) {
    this.in = in;
  }

  /** The next reply or push message. */
  public Object next() throws IOException {
    return readReply();
  }

  private Object readReply() throws IOException {
    int type = in.read();
    if (type == -1) {
      throw new EOFException("Redis closed the connection");
    }
    switch (type) {
      case '+':
        return readLine();
      case '_':
        readLine();
        return null;
      case '#':
        return "t".equals(readLine());
      case ',':
        return parseDouble(readLine());
      case '(':
        return readLine().getBytes(StandardCharsets.UTF_8);
      case '=':
        {
          byte[] verbatim = readBulk();
          // "txt:" or "mkd:" before the text
          return verbatim == null
              ? null
              : new String(verbatim, 4, Math.max(0, verbatim.length - 4), StandardCharsets.UTF_8);
        }
      case '>':
        return new RespPush(readAggregate(1));
      case '~':
        return readAggregate(1);
      case '%':
        return readAggregate(2);
      case '|':
        // attributes annotate the reply that follows; nothing the agent reads uses them
        readAggregate(2);
        return readReply();
      case '-':
        return new RespError(readLine());
      case ':':
        return parseLong(readLine());
      case '$':
        return readBulk();
      case '*':
        return readAggregate(1);
      default:
        throw new IOException("unexpected RESP type byte " + type);
    }
  }

  private byte[] readBulk() throws IOException {
    long length = parseLong(readLine());
    if (length < 0) {
      return null;
    }
    if (length > MAX_BULK) {
      throw new IOException("Redis bulk reply of " + length + " bytes");
    }
    byte[] data = in.readNBytes((int) length);
    if (data.length != length || in.read() != '\r' || in.read() != '\n') {
      throw new EOFException("truncated Redis bulk reply");
    }
    return data;
  }

  /** An array, set or push ({@code perEntry} 1) or a map or attribute (2, flattened). */
  private List<Object> readAggregate(int perEntry) throws IOException {
    long count = parseLong(readLine());
    if (count < 0) {
      return null;
    }
    long elements = count * perEntry;
    List<Object> items = new ArrayList<>((int) Math.min(elements, 1024));
    for (long i = 0; i < elements; i++) {
      items.add(readReply());
    }
    return items;
  }

  private String readLine() throws IOException {
    StringBuilder line = new StringBuilder(16);
    while (true) {
      int c = in.read();
      if (c == -1) {
        throw new EOFException("Redis closed the connection");
      }
      if (c == '\r') {
        int lineFeed = in.read();
        if (lineFeed == -1) {
          // the end of the bytes at hand, not a malformed line: a reader of chunks waits for more
          throw new EOFException("Redis closed the connection");
        }
        if (lineFeed != '\n') {
          throw new IOException("malformed RESP line");
        }
        return line.toString();
      }
      line.append((char) c);
    }
  }

  private static long parseLong(String text) throws IOException {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IOException("malformed RESP integer " + text);
    }
  }

  private static double parseDouble(String text) throws IOException {
    switch (text) {
      case "inf":
        return Double.POSITIVE_INFINITY;
      case "-inf":
        return Double.NEGATIVE_INFINITY;
      default:
        try {
          return Double.parseDouble(text);
        } catch (NumberFormatException e) {
          throw new IOException("malformed RESP double " + text);
        }
    }
  }
}
