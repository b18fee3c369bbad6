package io.hotkey.demo.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One persistent HTTP/1.1 connection to a loopback server, owned by one thread, one request at a
 * time. A load driver's own client: a request is written in one piece and the answer read straight
 * off the socket (status, {@code Content-Length} or chunked body, the one header the benchmark
 * looks at), so the client adds little to the latency it measures, and one connection per thread is
 * guaranteed (HttpURLConnection's keep-alive cache holds five per destination; java.net.http
 * funnels every answer through one selector thread).
 */
final class KeepAliveConnection implements AutoCloseable {

  /** What the benchmark reads from an answer. */
  record Answer(int status, boolean replayed, String body) {}

  private static final int TIMEOUT_MILLIS = 10_000;
  private static final int MAX_LINE = 8_192;

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final String host;

  KeepAliveConnection(int port) throws IOException {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.connect(new InetSocketAddress(loopback, port), TIMEOUT_MILLIS);
    socket.setSoTimeout(TIMEOUT_MILLIS);
    in = new BufferedInputStream(socket.getInputStream(), 16_384);
    out = new BufferedOutputStream(socket.getOutputStream(), 16_384);
    host = loopback.getHostAddress() + ":" + port;
  }

  /** {@code POST path} with a JSON body and, when {@code idempotencyKey} is not null, that key. */
  Answer post(String path, String idempotencyKey, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    StringBuilder head =
        new StringBuilder(160)
            .append("POST ")
            .append(path)
            .append(" HTTP/1.1\r\nHost: ")
            .append(host)
            .append("\r\nContent-Type: application/json\r\nContent-Length: ")
            .append(body.length);
    if (idempotencyKey != null) {
      head.append("\r\nIdempotency-Key: ").append(idempotencyKey);
    }
    out.write(head.append("\r\n\r\n").toString().getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    return readAnswer();
  }

  Answer get(String path) throws IOException {
    out.write(
        ("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return readAnswer();
  }

  private Answer readAnswer() throws IOException {
    String statusLine = readLine();
    if (!statusLine.startsWith("HTTP/1.1 ") || statusLine.length() < 12) {
      throw new IOException("not an HTTP/1.1 status line: " + statusLine);
    }
    int status = Integer.parseInt(statusLine.substring(9, 12));
    long length = -1;
    boolean chunked = false;
    boolean replayed = false;
    boolean closes = false;
    for (String line = readLine(); !line.isEmpty(); line = readLine()) {
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw new IOException("malformed header line: " + line);
      }
      String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = line.substring(colon + 1).trim();
      switch (name) {
        case "content-length" -> length = Long.parseLong(value);
        case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
        case "idempotent-replayed" -> replayed = "true".equalsIgnoreCase(value);
        case "connection" -> closes = "close".equalsIgnoreCase(value);
        default -> {
          // not needed by the benchmark
        }
      }
    }
    String body;
    if (chunked) {
      body = readChunked();
    } else if (length >= 0) {
      body = new String(readExactly(Math.toIntExact(length)), StandardCharsets.UTF_8);
    } else {
      throw new IOException(
          "an answer without Content-Length or chunked encoding cannot keep the connection");
    }
    if (closes) {
      throw new IOException("the server closed the kept-alive connection");
    }
    return new Answer(status, replayed, body);
  }

  private String readChunked() throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = readLine();
      int extension = sizeLine.indexOf(';');
      int size =
          Integer.parseInt(
              (extension < 0 ? sizeLine : sizeLine.substring(0, extension)).trim(), 16);
      if (size == 0) {
        while (!readLine().isEmpty()) {
          // trailers: none expected, none kept
        }
        return body.toString(StandardCharsets.UTF_8);
      }
      body.write(readExactly(size));
      readLine();
    }
  }

  private byte[] readExactly(int length) throws IOException {
    byte[] bytes = in.readNBytes(length);
    if (bytes.length < length) {
      throw new EOFException(
          "connection closed after " + bytes.length + " of " + length + " body bytes");
    }
    return bytes;
  }

  /** A CRLF-terminated line as ISO-8859-1, without its terminator. */
  private String readLine() throws IOException {
    StringBuilder line = new StringBuilder(64);
    while (true) {
      int b = in.read();
      if (b == -1) {
        throw new EOFException("connection closed by the server");
      }
      if (b == '\n') {
        int end = line.length();
        if (end > 0 && line.charAt(end - 1) == '\r') {
          line.setLength(end - 1);
        }
        return line.toString();
      }
      if (line.length() >= MAX_LINE) {
        throw new IOException("line longer than " + MAX_LINE + " bytes");
      }
      line.append((char) b);
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
