package io.hotkey.agent.instrument.servlet.jakarta;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import java.net.URLDecoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The request the application sees after the agent read its body: the body reads in full from the
 * buffer (then from the container's stream if only a prefix was buffered), through {@code
 * getInputStream()} or {@code getReader()} (not both, as the specification says), and a form body
 * ({@code application/x-www-form-urlencoded} POST) still shows in {@code getParameter*}. An async
 * cycle started through it is followed from the moment it starts, before another thread can end it
 * or ask for the dispatch that writes the answer.
 */
public final class RequestWrapper extends HttpServletRequestWrapper {
  private final RequestBody body;
  private final ResponseWrapper answer;
  private ServletInputStream stream;
  private BufferedReader reader;
  private Map<String, String[]> parameters;
  private String characterEncoding;

  /**
   * @param answer the response that captures this request's answer, or null when nothing is stored
   */
  RequestWrapper(HttpServletRequest request, RequestBody body, ResponseWrapper answer) {
    super(request);
    this.body = body;
    this.answer = answer;
  }

  @Override
  public AsyncContext startAsync() {
    return followed(super.startAsync());
  }

  @Override
  public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
    return followed(super.startAsync(request, response));
  }

  private AsyncContext followed(AsyncContext async) {
    if (answer != null) {
      Idempotency.followAsync(answer, async);
    }
    return async;
  }

  /**
   * Also kept here: the agent has read the body from the container's stream, after which a
   * container may ignore the encoding (Undertow does), while the application still decodes the body
   * it reads from this wrapper with it (Spring's {@code CharacterEncodingFilter} sets UTF-8).
   */
  @Override
  public void setCharacterEncoding(String encoding) throws UnsupportedEncodingException {
    if (reader != null) {
      return;
    }
    super.setCharacterEncoding(encoding);
    characterEncoding = encoding;
  }

  @Override
  public String getCharacterEncoding() {
    return characterEncoding != null ? characterEncoding : super.getCharacterEncoding();
  }

  @Override
  public ServletInputStream getInputStream() throws IOException {
    if (reader != null) {
      throw new IllegalStateException("getReader() has already been called for this request");
    }
    if (stream == null) {
      stream = new BufferedInput(body.consumed(), body.rest());
    }
    return stream;
  }

  @Override
  public BufferedReader getReader() throws IOException {
    if (reader == null) {
      if (stream != null) {
        throw new IllegalStateException(
            "getInputStream() has already been called for this request");
      }
      reader =
          new BufferedReader(
              new InputStreamReader(new BufferedInput(body.consumed(), body.rest()), charset()));
    }
    return reader;
  }

  private Charset charset() throws UnsupportedEncodingException {
    String name = getCharacterEncoding();
    if (name == null) {
      return StandardCharsets.ISO_8859_1;
    }
    try {
      return Charset.forName(name);
    } catch (RuntimeException e) {
      throw new UnsupportedEncodingException(name);
    }
  }

  @Override
  public String getParameter(String name) {
    String[] values = parameters().get(name);
    return values == null || values.length == 0 ? null : values[0];
  }

  @Override
  public Map<String, String[]> getParameterMap() {
    return Collections.unmodifiableMap(parameters());
  }

  @Override
  public Enumeration<String> getParameterNames() {
    return Collections.enumeration(parameters().keySet());
  }

  @Override
  public String[] getParameterValues(String name) {
    String[] values = parameters().get(name);
    return values == null ? null : values.clone();
  }

  /**
   * The container's parameters (the query: it no longer sees the body) plus those of a buffered
   * form body.
   */
  private synchronized Map<String, String[]> parameters() {
    if (parameters != null) {
      return parameters;
    }
    Map<String, String[]> merged = new LinkedHashMap<>(super.getParameterMap());
    String type = getContentType();
    if (stream == null
        && reader == null
        && body.whole()
        && "POST".equalsIgnoreCase(getMethod())
        && type != null
        && type.toLowerCase(java.util.Locale.ROOT)
            .startsWith("application/x-www-form-urlencoded")) {
      Charset charset;
      try {
        charset = charset();
      } catch (UnsupportedEncodingException e) {
        charset = StandardCharsets.ISO_8859_1;
      }
      Map<String, List<String>> form = new LinkedHashMap<>();
      for (String pair : new String(body.consumed(), StandardCharsets.ISO_8859_1).split("&")) {
        if (pair.isEmpty()) {
          continue;
        }
        int equals = pair.indexOf('=');
        try {
          String name = decode(equals < 0 ? pair : pair.substring(0, equals), charset);
          String value = equals < 0 ? "" : decode(pair.substring(equals + 1), charset);
          form.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
        } catch (IllegalArgumentException malformed) {
          // skipped, as containers skip a malformed pair
        }
      }
      for (Map.Entry<String, List<String>> entry : form.entrySet()) {
        String[] existing = merged.get(entry.getKey());
        List<String> all = new ArrayList<>();
        if (existing != null) {
          Collections.addAll(all, existing);
        }
        all.addAll(entry.getValue());
        merged.put(entry.getKey(), all.toArray(new String[0]));
      }
    }
    parameters = merged;
    return merged;
  }

  private static String decode(String latin1, Charset charset) {
    // the bytes were widened one to one; re-encode as Latin-1 to get them back before decoding
    return URLDecoder.decode(
        new String(latin1.getBytes(StandardCharsets.ISO_8859_1), charset), charset);
  }
}
