package io.hotkey.agent.redis.resp;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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

  private final Socket socket;
  private final InputStream in;
  private final RespDecoder decoder;
  private OutputStream out;
  private boolean broken;

  /**
   * Connects (over TLS for a {@code rediss://} endpoint), authenticates as the endpoint says and
   * selects its database; throws if any of it fails.
   */
  public RespConnection(RedisEndpoint endpoint, int connectTimeoutMillis, int readTimeoutMillis)
      throws IOException {
    this(endpoint, connectTimeoutMillis, readTimeoutMillis, false);
  }

  /**
   * @param overChannel whether a plain (not TLS) connection's socket is a {@link SocketChannel}'s,
   *     which {@link #switchToNonBlocking} can then hand to a non-blocking reader
   */
  public RespConnection(
      RedisEndpoint endpoint, int connectTimeoutMillis, int readTimeoutMillis, boolean overChannel)
      throws IOException {
    Socket s = overChannel && !endpoint.tls ? SocketChannel.open().socket() : new Socket();
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
      this.decoder = new RespDecoder(in);
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
      return decoder.next();
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

  /** The socket's channel, or null when it has none (TLS, or not opened over a channel). */
  public SocketChannel channel() {
    return socket.getChannel();
  }

  /**
   * Puts the channel in non-blocking mode, for a reader that takes replies from the channel itself
   * from now on; returns the bytes already received and buffered here, which come first. {@link
   * #send} keeps working (waiting, if the socket's send buffer is full, up to {@code
   * timeoutMillis}); {@link #read} must not be called again.
   */
  public byte[] switchToNonBlocking(int timeoutMillis) throws IOException {
    SocketChannel channel = socket.getChannel();
    byte[] received = in.readNBytes(in.available());
    out.flush();
    channel.configureBlocking(false);
    out = new BufferedOutputStream(new NonBlockingOutput(channel, timeoutMillis), 8192);
    return received;
  }

  /** Writes all of each buffer to a non-blocking channel, pausing while its send buffer is full. */
  private static final class NonBlockingOutput extends OutputStream {
    private static final long PAUSE_NANOS = 100_000;
    private final SocketChannel channel;
    private final long timeoutNanos;

    NonBlockingOutput(SocketChannel channel, int timeoutMillis) {
      this.channel = channel;
      this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
      long deadline = System.nanoTime() + timeoutNanos;
      while (buffer.hasRemaining()) {
        if (channel.write(buffer) == 0) {
          if (System.nanoTime() - deadline > 0) {
            throw new SocketTimeoutException(
                "Redis took no bytes for " + timeoutNanos / 1_000_000 + " ms");
          }
          LockSupport.parkNanos(PAUSE_NANOS);
        }
      }
    }
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
