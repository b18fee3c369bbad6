package io.hotkey.agent.idempotency;

/**
 * The engine's verdict: an answer to send instead of running the handler, an execution, or
 * pass-through.
 */
public final class Decision {
  private static final Decision PASS = new Decision(Outcome.PASS, null, null);

  private final Outcome outcome;
  private final HttpAnswer answer;
  private final Execution execution;

  private Decision(Outcome outcome, HttpAnswer answer, Execution execution) {
    this.outcome = outcome;
    this.answer = answer;
    this.execution = execution;
  }

  static Decision pass() {
    return PASS;
  }

  static Decision answer(Outcome outcome, HttpAnswer answer) {
    return new Decision(outcome, answer, null);
  }

  static Decision execute(Execution execution) {
    return new Decision(Outcome.EXECUTE, null, execution);
  }

  public Outcome outcome() {
    return outcome;
  }

  /**
   * The response to send instead of running the handler; null for {@link Outcome#EXECUTE} and
   * {@link Outcome#PASS}.
   */
  public HttpAnswer answer() {
    return answer;
  }

  /** Non-null only for {@link Outcome#EXECUTE}. */
  public Execution execution() {
    return execution;
  }

  @Override
  public String toString() {
    return outcome + (answer != null ? " " + answer.status() : "");
  }
}
