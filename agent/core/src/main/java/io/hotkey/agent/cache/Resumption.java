package io.hotkey.agent.cache;

/**
 * A parked read handed back to its adapter: the client's own connection and command, opaque here,
 * and what to do with it: replay {@link #answer()} into it, or send it to Redis when that is {@link
 * ParkedReads#NO_ANSWER}; and the read counters of its hot keys, for {@link
 * NearCache#countResumed}.
 */
public final class Resumption {
  private final Object answer;
  private final Object connection;
  private final Object command;
  final HotKeyReads[] hotKeys;

  Resumption(Object answer, Object connection, Object command, HotKeyReads[] hotKeys) {
    this.answer = answer;
    this.connection = connection;
    this.command = command;
    this.hotKeys = hotKeys;
  }

  /** The recorded reply to replay, or {@link ParkedReads#NO_ANSWER}. */
  public Object answer() {
    return answer;
  }

  public boolean answered() {
    return answer != ParkedReads.NO_ANSWER;
  }

  public Object connection() {
    return connection;
  }

  public Object command() {
    return command;
  }
}
