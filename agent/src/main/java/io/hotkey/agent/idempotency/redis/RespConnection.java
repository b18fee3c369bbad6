package io.hotkey.agent.idempotency.redis;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One RESP2 connection over a plain socket: commands as arrays of bulk strings, replies decoded to
 * {@code String} (simple), {@link RespError}, {@code Long}, {@code byte[]} (bulk, null when nil)
 * and {@code List<Object>} (array, null when nil). Not thread-safe: the pool lends it to one caller
 * at a time.
 */
final class RespConnection implements AutoCloseable {
  private static final byte[] CRLF = {'\r', '\n'};
  private static final int MAX_BULK = 512 * 1024 * 1024;

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private boolean broken;

  RespConnection(RedisEndpoint endpoint, int connectTimeoutMillis, int readTimeoutMillis)
      throws IOException {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.setKeepAlive(true);
      s.connect(new InetSocketAddress(endpoint.host, endpoint.port), connectTimeoutMillis);
      s.setSoTimeout(readTimeoutMillis);
      this.socket = s;
      this.in = new BufferedInputStream(s.getInputStream(), 8192);
      this.out = new BufferedOutputStream(s.getOutputStream(), 8192);
      if (endpoint.password != null) {
        Object reply =
            endpoint.user == null
                ? call(bytes("AUTH"), bytes(endpoint.password))
                : call(bytes("AUTH"), bytes(endpoint.user), bytes(endpoint.password));
        if (reply instanceof RespError) {
          throw new IOException("Redis AUTH failed: " + reply);
        }
      }
      if (endpoint.database != 0) {
        Object reply = call(bytes("SELECT"), bytes(Integer.toString(endpoint.database)));
        if (reply instanceof RespError) {
          throw new IOException("Redis SELECT " + endpoint.database + " failed: " + reply);
        }
      }
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /** Sends one command and reads its reply. Any IOException leaves the connection broken. */
  Object call(byte[]... args) throws IOException {
    try {
      writeCommand(args);
      out.flush();
      return readReply();
    } catch (IOException | RuntimeException e) {
      broken = true;
      throw e;
    }
  }

  boolean isBroken() {
    return broken;
  }

  private void writeCommand(byte[][] args) throws IOException {
    out.write('*');
    out.write(bytes(Integer.toString(args.length)));
    out.write(CRLF);
    for (byte[] arg : args) {
      out.write('$');
      out.write(bytes(Integer.toString(arg.length)));
      out.write(CRLF);
      out.write(arg);
      out.write(CRLF);
    }
  }

  private Object readReply() throws IOException {
    int type = in.read();
    if (type == -1) {
      throw new EOFException("Redis closed the connection");
    }
    switch (type) {
      case '+':
        return readLine();
      case '-':
        return new RespError(readLine());
      case ':':
        return parseLong(readLine());
      case '$':
        {
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
      case '*':
        {
          long count = parseLong(readLine());
          if (count < 0) {
            return null;
          }
          List<Object> items = new ArrayList<>((int) Math.min(count, 1024));
          for (long i = 0; i < count; i++) {
            items.add(readReply());
          }
          return items;
        }
      default:
        throw new IOException("unexpected RESP type byte " + type);
    }
  }

  private String readLine() throws IOException {
    StringBuilder line = new StringBuilder(16);
    while (true) {
      int c = in.read();
      if (c == -1) {
        throw new EOFException("Redis closed the connection");
      }
      if (c == '\r') {
        if (in.read() != '\n') {
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

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    broken = true;
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing a dead socket
    }
  }
}
