package io.hotkey.agent.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The live page: HTML, script and style shipped in the agent's jar, nothing from elsewhere. */
final class PageAssets {
  /** Only the page's own files and its own API; no inline script, no frame, no other origin. */
  static final String POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self';"
          + " base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private static final Map<String, String> FILES =
      Map.of(
          "/", "page/index.html",
          "/index.html", "page/index.html",
          "/live.js", "page/live.js",
          "/live.css", "page/live.css");

  private final Map<String, Asset> loaded = new ConcurrentHashMap<>();

  /** The file served at {@code path}; null when there is none. */
  Asset find(String path) {
    String resource = FILES.get(path);
    return resource == null ? null : loaded.computeIfAbsent(resource, PageAssets::load);
  }

  private static Asset load(String resource) {
    try (InputStream in = PageAssets.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing from the agent's jar: " + resource);
      }
      return new Asset(contentType(resource), in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String contentType(String resource) {
    if (resource.endsWith(".html")) {
      return "text/html; charset=utf-8";
    }
    if (resource.endsWith(".js")) {
      return "text/javascript; charset=utf-8";
    }
    return "text/css; charset=utf-8";
  }

  /** One file's bytes and media type. */
  static final class Asset {
    private final String contentType;
    private final byte[] bytes;

    Asset(String contentType, byte[] bytes) {
      this.contentType = contentType;
      this.bytes = bytes;
    }

    String contentType() {
      return contentType;
    }

    byte[] bytes() {
      return bytes;
    }
  }
}
