package io.hotkey.agent.instrument.servlet.jakarta;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;

/**
 * Follows an execution whose request went async ({@code startAsync}): its response is complete when the
 * async cycle completes (the claim is kept until then, so a retry meanwhile gets 409); an error or a timeout
 * releases the claim. Registered again when the application starts another async cycle.
 */
public final class AsyncCompletion implements AsyncListener {
  private final ResponseWrapper response;

  AsyncCompletion(ResponseWrapper response) {
    this.response = response;
  }

  @Override
  public void onComplete(AsyncEvent event) {
    response.completed();
  }

  @Override
  public void onTimeout(AsyncEvent event) {
    response.failed();
  }

  @Override
  public void onError(AsyncEvent event) {
    response.failed();
  }

  @Override
  public void onStartAsync(AsyncEvent event) {
    event.getAsyncContext().addListener(this);
  }
}
