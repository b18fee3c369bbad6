package io.hotkey.agent.instrument.servlet;

/**
 * The entry point of the helpers injected next to one servlet API ({@code jakarta} or {@code
 * javax}), through which {@link ServletBridge} hands them the outermost call of a request.
 */
public interface ServletApiHelper {
  /**
   * Decides the call (see {@link ServletCall}) for a request and response of this helper's servlet
   * API.
   */
  ServletCall enter(Object request, Object response) throws Exception;
}
