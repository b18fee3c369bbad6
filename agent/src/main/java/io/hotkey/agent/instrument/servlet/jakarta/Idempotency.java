package io.hotkey.agent.instrument.servlet.jakarta;

import io.hotkey.agent.idempotency.ReleaseReason;
import io.hotkey.agent.instrument.servlet.ServletBridge;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.ServletResponseWrapper;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;

/**
 * The servlet side of Idempotency-Key handling for the outermost {@code service}/{@code doFilter}
 * call. NOT loaded by the agent: {@link ServletBridge} renames this package's classes into the
 * servlet API's package ({@code HotkeyAgent*}) and defines them in the API's class loader, so they
 * may use the servlet API freely but reach the agent only through {@link ServletBridge} and JDK
 * types. The {@code javax} sibling package is this package with {@code jakarta} replaced by {@code
 * javax} (a test keeps them equal), and uses nothing newer than Servlet 4.0.
 */
public final class Idempotency {
  private Idempotency() {}

  /**
   * @return null to let the call run untouched, or {request, response, state, skip}: the arguments
   *     to run it with, the state {@link #exit} gets (null: nothing to follow), and non-null skip
   *     when the answer was written here and the call must not run
   */
  public static Object[] enter(Object req, Object res) throws Exception {
    if (!(req instanceof HttpServletRequest) || !(res instanceof HttpServletResponse)) {
      return null;
    }
    HttpServletRequest request = (HttpServletRequest) req;
    HttpServletResponse response = (HttpServletResponse) res;
    if (request.getDispatcherType() == DispatcherType.ASYNC) {
      // the dispatch that writes the answer of an execution that went async: followed to its end
      Object followed = request.getAttribute(AsyncCompletion.ATTRIBUTE);
      return followed instanceof AsyncCompletion
          ? new Object[] {request, response, followed, null}
          : null;
    }
    if (request.getDispatcherType() != DispatcherType.REQUEST || request.isAsyncStarted()) {
      return null;
    }
    String method = request.getMethod();
    String rawPath = request.getRequestURI();
    String path = ServletBridge.decodePath(rawPath);
    Object route = ServletBridge.route(method, path);
    if (route == null) {
      return null;
    }
    String contentType = request.getContentType();
    if (contentType != null && contentType.regionMatches(true, 0, "multipart/", 0, 10)) {
      return null; // parts are parsed by the container from its own stream: cannot be buffered and
      // put back
    }
    RequestBody body = new RequestBody(request);
    Object[] decision;
    try {
      decision =
          ServletBridge.decide(
              route,
              method,
              path,
              rawPath == null ? "" : rawPath,
              request.getQueryString(),
              name -> headerValues(request, name),
              limit -> {
                try {
                  return body.read(limit);
                } catch (java.io.IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (Throwable t) {
      ServletBridge.error("deciding", t);
      decision = null;
    }
    if (decision == null) {
      return body.touched()
          ? new Object[] {new RequestWrapper(request, body), response, null, null}
          : null;
    }
    if (decision.length == 3) {
      @SuppressWarnings("unchecked")
      List<Map.Entry<String, String>> headers = (List<Map.Entry<String, String>>) decision[1];
      send(request, response, (Integer) decision[0], headers, (byte[]) decision[2]);
      return new Object[] {request, response, null, Boolean.TRUE};
    }
    Object execution = decision[0];
    try {
      ResponseWrapper captured = new ResponseWrapper(request, response, execution);
      return new Object[] {new RequestWrapper(request, body), captured, captured, null};
    } catch (Throwable t) {
      ServletBridge.fail(execution, ReleaseReason.AGENT_ERROR);
      throw t;
    }
  }

  /** The call returned ({@code thrown} null) or threw. */
  public static void exit(Object state, Throwable thrown) {
    if (state instanceof AsyncCompletion) {
      ((AsyncCompletion) state).dispatchReturned(thrown);
      return;
    }
    ResponseWrapper response = (ResponseWrapper) state;
    if (thrown != null) {
      response.failed(ReleaseReason.HANDLER_THREW);
    } else if (response.request().isAsyncStarted()) {
      followAsync(response);
    } else {
      response.completed();
    }
  }

  /**
   * The call started async processing: the response is written later, from another thread or an
   * {@code ASYNC} dispatch, and is complete when the async cycle is. It is captured when the
   * application writes it through the request's own wrappers, i.e. {@code startAsync(request,
   * response)} with the response it was given, as Spring MVC does; with {@code startAsync()} it
   * goes to the container's response, which the agent does not see, and is not stored. Either way
   * the claim is held until the cycle ends, or until the {@code ASYNC} dispatch that wrote the
   * answer returns: the container sends the answer and ends the cycle only after that, so a client
   * that retries the moment it has the answer finds the key stored or released, as after a
   * synchronous call, instead of still claimed (409).
   */
  static void followAsync(ResponseWrapper response) {
    try {
      AsyncContext async = response.request().getAsyncContext();
      ServletResponse target = async.getResponse();
      if (target != response
          && !(target instanceof ServletResponseWrapper
              && ((ServletResponseWrapper) target).isWrapperFor(response))) {
        response.uncaptured();
      }
      AsyncCompletion completion = new AsyncCompletion(response);
      async.addListener(completion);
      response.request().setAttribute(AsyncCompletion.ATTRIBUTE, completion);
    } catch (IllegalStateException e) {
      response
          .abandon(); // no longer async, or no listener accepted: nothing to follow, release the
      // claim
    }
  }

  static List<String> headerValues(HttpServletRequest request, String name) {
    Enumeration<String> values = request.getHeaders(name);
    List<String> list = new ArrayList<>(1);
    while (values != null && values.hasMoreElements()) {
      list.add(values.nextElement());
    }
    return list;
  }

  /**
   * Writes an answer the engine made (replay, 400/409/422/503 problem) instead of running the
   * handler.
   */
  static void send(
      HttpServletRequest request,
      HttpServletResponse response,
      int status,
      List<Map.Entry<String, String>> headers,
      byte[] body)
      throws java.io.IOException {
    response.setStatus(status);
    for (Map.Entry<String, String> header : headers) {
      if ("Content-Type".equalsIgnoreCase(header.getKey())) {
        response.setContentType(header.getValue());
      } else {
        response.addHeader(header.getKey(), header.getValue());
      }
    }
    boolean bodyless =
        status < 200
            || status == 204
            || status == 304
            || "HEAD".equalsIgnoreCase(request.getMethod());
    if (bodyless || body.length == 0) {
      if (!bodyless) {
        response.setContentLength(0);
      }
      response.flushBuffer();
      return;
    }
    response.setContentLength(body.length);
    ServletOutputStream out = response.getOutputStream();
    out.write(body);
    out.flush();
  }
}
