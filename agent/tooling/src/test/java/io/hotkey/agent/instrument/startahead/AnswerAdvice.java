package io.hotkey.agent.instrument.startahead;

import net.bytebuddy.asm.Advice;

/** Replaces {@link CandidateType#answer()}'s value, so that a test can see the advice woven. */
public final class AnswerAdvice {
  private AnswerAdvice() {}

  // the assignment is what Byte Buddy weaves in as the return value
  @SuppressWarnings("UnusedVariable")
  @Advice.OnMethodExit
  public static void exit(@Advice.Return(readOnly = false) String answer) {
    answer = "advised";
  }
}
