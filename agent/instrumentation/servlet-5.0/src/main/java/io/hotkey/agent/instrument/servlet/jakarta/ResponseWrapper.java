package io.hotkey.agent.instrument.servlet.jakarta;

import io.hotkey.agent.idempotency.BodyCapture;
import io.hotkey.agent.idempotency.Execution;
import io.hotkey.agent.idempotency.ReleaseReason;
import io.hotkey.agent.instrument.servlet.ServletBridge;
import io.hotkey.agent.instrument.servlet.ServletCall;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The response of an execution: everything goes to the container as written (streaming is
 * untouched) and a copy of the body (up to max-body) is kept. The response is handed to the engine
 *
 * <ul>
 *   <li>when a declared {@code Content-Length} is reached: just before those last bytes go to the
 *       container, so a client that has the whole response finds the record;
 *   <li>when the application closes the stream or writer, before the close;
 *   <li>otherwise when the outermost call returns (the container then completes the response).
 * </ul>
 *
 * An exception from the call releases the claim unless the response was already complete. A request
 * that went async ({@code startAsync}) is complete when its async cycle is ({@link
 * AsyncCompletion}). Responses that cannot be captured are passed through and not stored (the claim
 * is released): {@code sendError} (the container renders the error page later), non-blocking writes
 * ({@code setWriteListener}) and async responses written to the container's own response ({@code
 * startAsync()} without this wrapper).
 */
public final class ResponseWrapper extends HttpServletResponseWrapper implements ServletCall.End {
  private final HttpServletRequest request;
  private final Execution execution;
  private final long maxBody;
  private BodyCapture capture;
  private long declaredLength = -1;
  private boolean uncapturable;
  private boolean ended;
  private boolean followingAsync;
  private CapturingOutput output;
  private PrintWriter writer;

  ResponseWrapper(HttpServletRequest request, HttpServletResponse response, Execution execution) {
    super(response);
    this.request = request;
    this.execution = execution;
    this.maxBody = execution.maxBody();
    this.capture = new BodyCapture(maxBody);
  }

  HttpServletRequest request() {
    return request;
  }

  /** The outermost call returned or threw. */
  @Override
  public void callReturned(Throwable thrown) {
    if (thrown != null) {
      failed(ReleaseReason.HANDLER_THREW);
    } else if (isFollowingAsync()) {
      return; // its async cycle, already followed, ends it
    } else if (request.isAsyncStarted()) {
      Idempotency.followAsync(this);
    } else {
      completed();
    }
  }

  @Override
  public ServletOutputStream getOutputStream() throws IOException {
    ServletOutputStream real = super.getOutputStream();
    if (output == null) {
      output = new CapturingOutput(real, this);
    }
    return output;
  }

  @Override
  public PrintWriter getWriter() throws IOException {
    PrintWriter real = super.getWriter();
    if (writer == null) {
      String encoding = getCharacterEncoding();
      Charset charset;
      try {
        charset = encoding == null ? StandardCharsets.ISO_8859_1 : Charset.forName(encoding);
      } catch (RuntimeException e) {
        charset = StandardCharsets.ISO_8859_1;
        uncaptured();
      }
      writer = new PrintWriter(new CapturingWriter(real, this, charset));
    }
    return writer;
  }

  @Override
  public void setContentLength(int length) {
    super.setContentLength(length);
    declared(length);
  }

  @Override
  public void setContentLengthLong(long length) {
    super.setContentLengthLong(length);
    declared(length);
  }

  @Override
  public void setHeader(String name, String value) {
    super.setHeader(name, value);
    declaredHeader(name, value);
  }

  @Override
  public void addHeader(String name, String value) {
    super.addHeader(name, value);
    declaredHeader(name, value);
  }

  @Override
  public void setIntHeader(String name, int value) {
    super.setIntHeader(name, value);
    declaredHeader(name, Integer.toString(value));
  }

  @Override
  public void addIntHeader(String name, int value) {
    super.addIntHeader(name, value);
    declaredHeader(name, Integer.toString(value));
  }

  @Override
  public void sendError(int status) throws IOException {
    uncaptured();
    super.sendError(status);
  }

  @Override
  public void sendError(int status, String message) throws IOException {
    uncaptured();
    super.sendError(status, message);
  }

  @Override
  public void reset() {
    super.reset();
    restart();
  }

  @Override
  public void resetBuffer() {
    super.resetBuffer();
    synchronized (this) {
      capture = new BodyCapture(maxBody);
    }
  }

  private synchronized void restart() {
    capture = new BodyCapture(maxBody);
    declaredLength = -1;
  }

  private void declaredHeader(String name, String value) {
    if (name != null && value != null && "Content-Length".equalsIgnoreCase(name)) {
      try {
        declared(Long.parseLong(value.trim()));
      } catch (NumberFormatException ignored) {
        // the container decides what to do with it
      }
    }
  }

  private synchronized void declared(long length) {
    declaredLength = length;
  }

  /** Called with every body byte before it goes to the container. Never throws. */
  synchronized void captured(byte[] bytes, int offset, int length) {
    if (ended) {
      return;
    }
    try {
      capture.append(bytes, offset, length);
      if (declaredLength >= 0
          && capture.total() >= declaredLength
          && !"HEAD".equalsIgnoreCase(request.getMethod())) {
        end(capture.total() == declaredLength);
      }
    } catch (Throwable t) {
      ServletBridge.error("capturing a response", t);
      ended = true;
      execution.fail(ReleaseReason.AGENT_ERROR);
    }
  }

  /** The application closes the stream or writer: the response is complete. */
  synchronized void closing() {
    if (!ended) {
      completed();
    }
  }

  /** This response will not be stored; it still streams as written. */
  synchronized void uncaptured() {
    uncapturable = true;
  }

  /** The outermost call returned: the response is complete (the container finishes sending it). */
  synchronized void completed() {
    if (ended) {
      return;
    }
    try {
      end(
          declaredLength < 0
              || capture.total() == declaredLength
              || "HEAD".equalsIgnoreCase(request.getMethod()));
    } catch (Throwable t) {
      ServletBridge.error("completing a response", t);
      ended = true;
      execution.fail(ReleaseReason.AGENT_ERROR);
    }
  }

  /** The call threw: release the claim unless the response was already complete. */
  synchronized void failed(ReleaseReason why) {
    if (ended) {
      return; // e.g. the client went away after its answer was stored at the end of the async
      // dispatch
    }
    ended = true;
    execution.fail(why);
  }

  /** An async cycle of the request is followed: its end, not the outermost call's, ends this. */
  synchronized void followingAsync() {
    followingAsync = true;
  }

  private synchronized boolean isFollowingAsync() {
    return followingAsync;
  }

  /** The request went async and cannot be followed: release the claim. */
  synchronized void abandon() {
    ended = true;
    execution.fail(ReleaseReason.NOT_FOLLOWED);
  }

  private void end(boolean whole) {
    ended = true;
    byte[] body = capture.bytes();
    execution.finish(
        getStatus(),
        headers(),
        body == null ? new byte[0] : body,
        whole && body != null && !uncapturable);
  }

  private List<Map.Entry<String, String>> headers() {
    List<Map.Entry<String, String>> list = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    boolean hasType = false;
    for (String name : getHeaderNames()) {
      if (name == null || !seen.add(name.toLowerCase(Locale.ROOT))) {
        continue;
      }
      hasType |= "Content-Type".equalsIgnoreCase(name);
      for (String value : getHeaders(name)) {
        if (value != null) {
          list.add(Map.entry(name, value));
        }
      }
    }
    String type = getContentType();
    if (!hasType && type != null) {
      list.add(Map.entry("Content-Type", type));
    }
    return list;
  }
}
