package io.hotkey.demo.load;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One request on a kept-alive connection. HttpURLConnection rather than java.net.http.HttpClient:
 * the latter funnels every response through one selector thread, which on a small machine caps the
 * load well below what the service can serve.
 */
final class HttpCall {

  static final int TIMEOUT_MILLIS = 5_000;

  /** Status, the two headers the drivers look at, and the body. */
  record Answer(int status, String contentType, boolean replayed, String body) {}

  private HttpCall() {}

  static Answer send(
      URI service, String method, String path, String jsonBody, Map<String, String> headers)
      throws IOException {
    HttpURLConnection connection =
        (HttpURLConnection) service.resolve(path).toURL().openConnection();
    connection.setConnectTimeout(TIMEOUT_MILLIS);
    connection.setReadTimeout(TIMEOUT_MILLIS);
    connection.setRequestMethod(method);
    headers.forEach(connection::setRequestProperty);
    if (jsonBody != null) {
      connection.setDoOutput(true);
      connection.setRequestProperty("Content-Type", "application/json");
      try (OutputStream body = connection.getOutputStream()) {
        body.write(jsonBody.getBytes(StandardCharsets.UTF_8));
      }
    }
    int status = connection.getResponseCode();
    // Reading the body to the end and closing the stream returns the connection to the keep-alive
    // cache.
    String body = "";
    try (InputStream in =
        status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
      if (in != null) {
        body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    }
    String contentType = connection.getContentType();
    return new Answer(
        status,
        contentType == null ? "" : contentType,
        "true".equalsIgnoreCase(connection.getHeaderField("Idempotent-Replayed")),
        body);
  }
}
