package io.hotkey.it.app;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A RESP2 connection that is no client library the agent instruments: the ground truth the scenario
 * apps compare the agent's answers against. Replies come back as {@code String} (bulk and status),
 * {@code Long}, {@code List} or {@code null}; an error reply as {@code "ERR:" + text}.
 */
public final class RawRedis implements AutoCloseable {
  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;

  public RawRedis(String host, int port) {
    try {
      socket = new Socket(host, port);
      out = socket.getOutputStream();
      in = new BufferedInputStream(socket.getInputStream());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A raw connection to the node of {@code nodes} (host:port each; one: a standalone server) that
   * holds {@code key}: the one that does not redirect.
   */
  public static RawRedis ownerOf(List<String> nodes, String key) {
    for (String node : nodes) {
      String[] hp = node.split(":");
      RawRedis raw = new RawRedis(hp[0], Integer.parseInt(hp[1]));
      if (!(raw.call("PTTL", key) instanceof String moved && moved.startsWith("ERR:MOVED"))) {
        return raw;
      }
      raw.close();
    }
    throw new IllegalStateException("no node holds " + key);
  }

  public synchronized Object call(String... argv) {
    try {
      ByteArrayOutputStream request = new ByteArrayOutputStream();
      request.write(("*" + argv.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      for (String arg : argv) {
        byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
        request.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        request.write(bytes);
        request.write("\r\n".getBytes(StandardCharsets.US_ASCII));
      }
      out.write(request.toByteArray());
      out.flush();
      return read();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Object read() throws IOException {
    int type = in.read();
    String line = line();
    switch (type) {
      case '+' -> {
        return line;
      }
      case '-' -> {
        return "ERR:" + line;
      }
      case ':' -> {
        return Long.parseLong(line);
      }
      case '$' -> {
        int length = Integer.parseInt(line);
        if (length < 0) {
          return null;
        }
        byte[] bytes = in.readNBytes(length + 2);
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
      }
      case '*' -> {
        int count = Integer.parseInt(line);
        if (count < 0) {
          return null;
        }
        List<Object> items = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          items.add(read());
        }
        return items;
      }
      default -> throw new IOException("unexpected reply type " + type);
    }
  }

  private String line() throws IOException {
    StringBuilder line = new StringBuilder();
    int b;
    while ((b = in.read()) != '\r') {
      if (b < 0) {
        throw new IOException("connection closed");
      }
      line.append((char) b);
    }
    in.read();
    return line.toString();
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException ignored) {
      // nothing left to release
    }
  }
}
