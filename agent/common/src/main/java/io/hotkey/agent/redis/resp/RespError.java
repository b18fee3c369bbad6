package io.hotkey.agent.redis.resp;

/** A RESP error reply ({@code -ERR ...}) as a value: the connection stays usable. */
public final class RespError {
  private final String message;

  public RespError(String message) {
    this.message = message;
  }

  public String message() {
    return message;
  }

  public boolean isNoScript() {
    return message.startsWith("NOSCRIPT");
  }

  @Override
  public String toString() {
    return "-" + message;
  }
}
