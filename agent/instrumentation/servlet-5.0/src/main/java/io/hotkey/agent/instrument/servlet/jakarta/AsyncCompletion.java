package io.hotkey.agent.instrument.servlet.jakarta;

import io.hotkey.agent.idempotency.ReleaseReason;
import io.hotkey.agent.instrument.servlet.ServletCall;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;

/**
 * Follows an execution whose request went async ({@code startAsync}): its response is complete when
 * the {@code ASYNC} dispatch that writes it returns, or else when the async cycle completes (the
 * claim is kept until then, so a retry meanwhile gets 409); an error or a timeout releases the
 * claim. Registered again when the application starts another async cycle. Whichever end comes
 * first counts; later ones do nothing.
 */
public final class AsyncCompletion implements AsyncListener, ServletCall.End {
  /**
   * Request attribute by which the {@code ASYNC} dispatch that writes the answer finds what it
   * completes.
   */
  static final String ATTRIBUTE = "io.hotkey.idempotency.async";

  private final ResponseWrapper response;

  AsyncCompletion(ResponseWrapper response) {
    this.response = response;
  }

  /**
   * The {@code ASYNC} dispatch returned or threw. Unless it started another async cycle, the answer
   * is whole now, before the container sends it: stored or released here, not after the client has
   * it.
   */
  @Override
  public void callReturned(Throwable thrown) {
    if (thrown != null) {
      response.failed(ReleaseReason.HANDLER_THREW);
    } else if (!response.request().isAsyncStarted()) {
      response.completed();
    }
  }

  @Override
  public void onComplete(AsyncEvent event) {
    response.completed();
  }

  @Override
  public void onTimeout(AsyncEvent event) {
    response.failed(ReleaseReason.ASYNC_TIMEOUT);
  }

  @Override
  public void onError(AsyncEvent event) {
    response.failed(ReleaseReason.ASYNC_ERROR);
  }

  @Override
  public void onStartAsync(AsyncEvent event) {
    event.getAsyncContext().addListener(this);
  }
}
