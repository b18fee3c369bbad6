package io.hotkey.agent.idempotency.store;

import io.hotkey.agent.idempotency.HttpAnswer;
import java.time.Duration;

/**
 * Where idempotency records live. A record is either issued (a token waiting for its first use), in
 * progress (claimed, blocking the key for the lease) or completed (a stored response, replayed for
 * the ttl). Every operation is atomic on its key. Fencing: a claim returns a token that is larger
 * than every token handed out before for the same key; complete and release act only while the
 * record still carries the caller's token, so an owner whose lease expired (and whose key was
 * claimed again) can neither overwrite nor delete the newer claim. Releasing the claim of an issued
 * record makes it issued again, for its ttl, so that a retry can use it.
 */
public interface RecordStore extends AutoCloseable {
  /** Claims the key if it has no live record, otherwise reports the record. */
  ClaimResult claim(String recordKey, byte[] fingerprint, Duration lease) throws StoreException;

  /**
   * Creates a record that only {@link #claimIssued} with the same {@code scope} may claim, living
   * for {@code ttl} until then.
   *
   * @return false when the key already has a record (nothing changed)
   */
  boolean issue(String recordKey, String scope, Duration ttl) throws StoreException;

  /**
   * Claims an issued record: {@link ClaimResult.Kind#NOT_ISSUED} when there is none (never issued
   * or expired), {@link ClaimResult.Kind#WRONG_CALLER} when it was issued to another scope;
   * otherwise as {@link #claim}, where the first claim of the issued record wins (exactly one of
   * concurrent claims) and later ones find it in progress or completed.
   */
  ClaimResult claimIssued(String recordKey, String scope, byte[] fingerprint, Duration lease)
      throws StoreException;

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
