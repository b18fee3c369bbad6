package io.hotkey.agent.idempotency.store;

import io.hotkey.agent.idempotency.HttpAnswer;
import java.time.Duration;

/**
 * Where idempotency records live. A record is either in progress (claimed, blocking the key for the
 * lease) or completed (a stored response, replayed for the ttl). Every operation is atomic on its
 * key. Fencing: a claim returns a token that is larger than every token handed out before; complete
 * and release act only while the record still carries the caller's token, so an owner whose lease
 * expired (and whose key was claimed again) can neither overwrite nor delete the newer claim.
 */
public interface RecordStore extends AutoCloseable {
  /** Claims the key if it has no live record, otherwise reports the record. */
  ClaimResult claim(String recordKey, byte[] fingerprint, Duration lease) throws StoreException;

  /**
   * Stores the response if the key is still claimed with {@code token}; @return false when fenced
   * out.
   */
  boolean complete(String recordKey, long token, HttpAnswer response, Duration ttl)
      throws StoreException;

  /** Deletes the claim if it still carries {@code token}; @return false when fenced out or gone. */
  boolean release(String recordKey, long token) throws StoreException;

  /** Short name for logs, e.g. {@code memory} or {@code redis://host:6379}. */
  String describe();

  @Override
  void close();
}
