package io.hotkey.agent.instrument.servlet.jakarta;

import io.hotkey.agent.idempotency.Decision;
import io.hotkey.agent.idempotency.Execution;
import io.hotkey.agent.idempotency.HttpAnswer;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.idempotency.Outcome;
import io.hotkey.agent.idempotency.ReleaseReason;
import io.hotkey.agent.idempotency.Route;
import io.hotkey.agent.instrument.servlet.ServletApiHelper;
import io.hotkey.agent.instrument.servlet.ServletBridge;
import io.hotkey.agent.instrument.servlet.ServletCall;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.ServletResponseWrapper;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Map;

/**
 * The servlet side of Idempotency-Key handling for the outermost {@code service}/{@code doFilter}
 * call, and the helpers' entry point. NOT loaded by the agent: {@link ServletBridge} renames this
 * package's classes into the servlet API's package ({@code HotkeyAgent*}) and defines them in the
 * API's class loader, so they may use the servlet API freely; they reach the engine through {@link
 * ServletBridge#engine()} and speak to it in its own types. The {@code javax} sibling package is
 * this package with {@code jakarta} replaced by {@code javax} (a test keeps them equal), and uses
 * nothing newer than Servlet 4.0.
 */
public final class Idempotency implements ServletApiHelper {
  @Override
  public ServletCall enter(Object req, Object res) throws Exception {
    if (!(req instanceof HttpServletRequest) || !(res instanceof HttpServletResponse)) {
      return ServletCall.asIs();
    }
    HttpServletRequest request = (HttpServletRequest) req;
    HttpServletResponse response = (HttpServletResponse) res;
    if (request.getDispatcherType() == DispatcherType.ASYNC) {
      // the dispatch that writes the answer of an execution that went async: followed to its end
      Object followed = request.getAttribute(AsyncCompletion.ATTRIBUTE);
      return followed instanceof AsyncCompletion
          ? ServletCall.followed(request, response, (AsyncCompletion) followed)
          : ServletCall.asIs();
    }
    IdempotencyEngine engine = ServletBridge.engine();
    if (engine == null
        || request.getDispatcherType() != DispatcherType.REQUEST
        || request.isAsyncStarted()) {
      return ServletCall.asIs();
    }
    String method = request.getMethod();
    String rawPath = request.getRequestURI();
    String path = ServletBridge.decodePath(rawPath);
    Route route = engine.route(method, path);
    if (route == null) {
      return ServletCall.asIs();
    }
    String contentType = request.getContentType();
    if (contentType != null && contentType.regionMatches(true, 0, "multipart/", 0, 10)) {
      // parts are parsed by the container from its own stream: they cannot be buffered and put back
      return ServletCall.asIs();
    }
    RequestBody body = new RequestBody(request);
    Decision decision;
    try {
      decision =
          engine.decide(
              route,
              new ServletRequestHead(request, method, path, rawPath == null ? "" : rawPath),
              body);
    } catch (Throwable t) {
      ServletBridge.error("deciding", t);
      decision = null;
    }
    if (decision == null || decision.outcome() == Outcome.PASS) {
      return body.touched()
          ? ServletCall.withArguments(new RequestWrapper(request, body, null), response)
          : ServletCall.asIs();
    }
    HttpAnswer answer = decision.answer();
    if (answer != null) {
      send(request, response, answer);
      return ServletCall.answered();
    }
    Execution execution = decision.execution();
    try {
      ResponseWrapper captured = new ResponseWrapper(request, response, execution);
      return ServletCall.followed(new RequestWrapper(request, body, captured), captured, captured);
    } catch (Throwable t) {
      execution.fail(ReleaseReason.AGENT_ERROR);
      throw t;
    }
  }

  /**
   * An async cycle started past the agent's request wrapper (on a request the application
   * unwrapped), found when the outermost call returns.
   */
  static void followAsync(ResponseWrapper response) {
    try {
      followAsync(response, response.request().getAsyncContext());
    } catch (IllegalStateException e) {
      response.abandon(); // no longer async: nothing to follow, release the claim
    }
  }

  /**
   * The request started the async cycle {@code async}: the response is written later, from another
   * thread or an {@code ASYNC} dispatch, and is complete when the async cycle is. It is captured
   * when the application writes it through the request's own wrappers, i.e. {@code
   * startAsync(request, response)} with the response it was given, as Spring MVC does; with {@code
   * startAsync()} it goes to the container's response, which the agent does not see, and is not
   * stored. Either way the claim is held until the cycle ends, or until the {@code ASYNC} dispatch
   * that wrote the answer returns: the container sends the answer and ends the cycle only after
   * that, so a client that retries the moment it has the answer finds the key stored or released,
   * as after a synchronous call, instead of still claimed (409).
   */
  static void followAsync(ResponseWrapper response, AsyncContext async) {
    try {
      response.followingAsync();
      ServletResponse target = async.getResponse();
      if (target != response
          && !(target instanceof ServletResponseWrapper
              && ((ServletResponseWrapper) target).isWrapperFor(response))) {
        response.uncaptured();
      }
      AsyncCompletion completion = new AsyncCompletion(response);
      response.request().setAttribute(AsyncCompletion.ATTRIBUTE, completion);
      async.addListener(completion);
    } catch (RuntimeException e) {
      response.abandon(); // no listener accepted: nothing to follow, release the claim
    }
  }

  /**
   * Writes an answer the engine made (replay, 400/409/422/503 problem) instead of running the
   * handler.
   */
  static void send(HttpServletRequest request, HttpServletResponse response, HttpAnswer answer)
      throws java.io.IOException {
    int status = answer.status();
    byte[] body = answer.body();
    response.setStatus(status);
    for (Map.Entry<String, String> header : answer.headers()) {
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
