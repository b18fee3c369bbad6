package io.hotkey.agent.idempotency.store;

/** The store could not be reached or answered something unusable; the record's state is unknown. */
public final class StoreException extends Exception {
  private static final long serialVersionUID = 1L;

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public StoreException(String message) {
    super(message);
  }
}
