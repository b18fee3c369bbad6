package io.hotkey.agent.instrument.servlet;

/**
 * What one {@code Servlet.service} or {@code FilterChain.doFilter} call does, as the injected
 * helpers decide it and {@link ServletAdvice} carries it out: it runs as it is, runs with other
 * arguments (wrappers of its own), possibly followed to its end, or is skipped because the answer
 * has been written.
 */
public final class ServletCall {
  /** Told when a followed call returned or threw. */
  public interface End {
    /**
     * The application's call has ended.
     *
     * @param thrown what the call threw, or null when it returned
     */
    void callReturned(Throwable thrown);
  }

  private static final ServletCall AS_IS = new ServletCall(null, null, null, false);
  private static final ServletCall ANSWERED = new ServletCall(null, null, null, true);

  private final Object request;
  private final Object response;
  private final End end;
  private final boolean answered;

  private ServletCall(Object request, Object response, End end, boolean answered) {
    this.request = request;
    this.response = response;
    this.end = end;
    this.answered = answered;
  }

  /** The call runs untouched. */
  public static ServletCall asIs() {
    return AS_IS;
  }

  /** The answer has been written: the call does not run. */
  public static ServletCall answered() {
    return ANSWERED;
  }

  /** The call runs with these arguments. */
  public static ServletCall withArguments(Object request, Object response) {
    return new ServletCall(request, response, null, false);
  }

  /** The call runs with these arguments, and {@code end} is told when it returned or threw. */
  public static ServletCall followed(Object request, Object response, End end) {
    return new ServletCall(request, response, end, false);
  }

  /** The request to run the call with, or null to keep its own. */
  public Object request() {
    return request;
  }

  /** The response to run the call with, or null to keep its own. */
  public Object response() {
    return response;
  }

  public boolean isAnswered() {
    return answered;
  }

  void returned(Throwable thrown) {
    if (end != null) {
      end.callReturned(thrown);
    }
  }
}
