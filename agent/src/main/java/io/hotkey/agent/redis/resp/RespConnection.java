package io.hotkey.agent.redis.resp;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * One connection over a plain socket, the agent's own (never the application's client): commands as
 * arrays of bulk strings, replies decoded to {@code String} (simple, verbatim), {@link RespError},
 * {@code Long}, {@code byte[]} (bulk, big number; null when nil), {@code List<Object>} (array, set,
 * map as alternating keys and values; null when nil), {@code Boolean}, {@code Double} and, after a
 * {@code HELLO 3} (an endpoint with protocol 3 says it on connect), {@link RespPush} for
 * out-of-band messages. Not thread-safe: one caller at a time, except that one thread may {@link
 * #read} while another {@link #send}s.
 */
public final class RespConnection implements AutoCloseable {
  private static final byte[] CRLF = {'\r', '\n'};
  private static final int MAX_BULK = 512 * 1024 * 1024;

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private boolean broken;

  /**
   * Connects (over TLS for a {@code rediss://} endpoint), authenticates as the endpoint says and
   * selects its database; throws if any of it fails.
   */
  public RespConnection(RedisEndpoint endpoint, int connectTimeoutMillis, int readTimeoutMillis)
      throws IOException {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.setKeepAlive(true);
      s.connect(new InetSocketAddress(endpoint.host, endpoint.port), connectTimeoutMillis);
      s.setSoTimeout(readTimeoutMillis);
      if (endpoint.tls) {
        s = startTls(s, endpoint);
      }
      this.socket = s;
      this.in = new BufferedInputStream(s.getInputStream(), 8192);
      this.out = new BufferedOutputStream(s.getOutputStream(), 8192);
      authenticate(endpoint);
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

  /**
   * {@code HELLO 3} with the credentials for a RESP3 endpoint, else {@code AUTH} when there are
   * credentials.
   */
  private void authenticate(RedisEndpoint endpoint) throws IOException {
    PasswordAuthentication login = endpoint.login();
    Object reply;
    if (endpoint.protocol == 3) {
      reply =
          login == null
              ? call(bytes("HELLO"), bytes("3"))
              : call(
                  bytes("HELLO"),
                  bytes("3"),
                  bytes("AUTH"),
                  bytes(login.getUserName() == null ? "default" : login.getUserName()),
                  bytes(login.getPassword()));
    } else if (login != null) {
      reply =
          login.getUserName() == null
              ? call(bytes("AUTH"), bytes(login.getPassword()))
              : call(bytes("AUTH"), bytes(login.getUserName()), bytes(login.getPassword()));
    } else {
      return;
    }
    if (reply instanceof RespError) {
      throw new IOException(
          "Redis " + (endpoint.protocol == 3 ? "HELLO 3" : "AUTH") + " failed: " + reply);
    }
  }

  /**
   * The TLS handshake over a connected socket, verifying the server's name as HTTPS does unless the
   * endpoint says not to.
   */
  private static Socket startTls(Socket plain, RedisEndpoint endpoint) throws IOException {
    SSLSocket tls =
        (SSLSocket)
            endpoint.tlsSocketFactory().createSocket(plain, endpoint.host, endpoint.port, true);
    if (endpoint.verifyHostName) {
      SSLParameters parameters = tls.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      tls.setSSLParameters(parameters);
    }
    tls.startHandshake();
    return tls;
  }

  /** Sends one command and reads its reply. Any IOException leaves the connection broken. */
  public Object call(byte[]... args) throws IOException {
    send(args);
    return read();
  }

  /** Writes and flushes one command without waiting for its reply. */
  public void send(byte[]... args) throws IOException {
    try {
      writeCommand(args);
      out.flush();
    } catch (IOException | RuntimeException e) {
      broken = true;
      throw e;
    }
  }

  /** Reads the next reply or push message. */
  public Object read() throws IOException {
    try {
      return readReply();
    } catch (IOException | RuntimeException e) {
      broken = true;
      throw e;
    }
  }

  /**
   * Changes how long {@link #read} waits before it throws {@link java.net.SocketTimeoutException};
   * 0 waits forever.
   */
  public void readTimeout(int millis) throws IOException {
    socket.setSoTimeout(millis);
  }

  public boolean isBroken() {
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
      case '_':
        readLine();
        return null;
      case '#':
        return "t".equals(readLine());
      case ',':
        return parseDouble(readLine());
      case '(':
        return bytes(readLine());
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

  public static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A password's UTF-8 bytes, as clients send a {@code char[]} password. */
  private static byte[] bytes(char[] secret) {
    ByteBuffer encoded = StandardCharsets.UTF_8.encode(CharBuffer.wrap(secret));
    byte[] out = new byte[encoded.remaining()];
    encoded.get(out);
    return out;
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
