package io.hotkey.agent.idempotency;

/** Why a claim was released without an answer; the log is rate-limited per reason. */
public enum ReleaseReason {
  HANDLER_THREW("the handler threw"),
  AGENT_ERROR("the agent could not follow the response (its internal error is logged)"),
  NO_RESPONSE("the exchange was closed without a response"),
  ASYNC_TIMEOUT("the async request timed out"),
  ASYNC_ERROR("the async request ended in an error"),
  NOT_FOLLOWED("the request went async in a way the agent cannot follow");

  private final String description;

  ReleaseReason(String description) {
    this.description = description;
  }

  /** The phrase the log line gives. */
  public String description() {
    return description;
  }
}
