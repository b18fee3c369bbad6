package io.hotkey.agent.idempotency.store;

import io.hotkey.agent.idempotency.HttpAnswer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A {@link RecordStore}'s operations, answered later: a reactive server's adapter sends them from
 * its event loop and carries on where the answer arrives, without a thread waiting for it. The
 * semantics are {@link RecordStore}'s; a failure completes the stage exceptionally, with a {@link
 * StoreException} for the store's own trouble. A blocking store becomes one with {@link #inline}.
 */
public interface AsyncRecordStore {
  CompletionStage<ClaimResult> claim(String recordKey, byte[] fingerprint, Duration lease);

  CompletionStage<Boolean> issue(String recordKey, String scope, Duration ttl);

  CompletionStage<ClaimResult> claimIssued(
      String recordKey, String scope, byte[] fingerprint, Duration lease);

  CompletionStage<Boolean> complete(
      String recordKey, long token, HttpAnswer response, Duration ttl);

  CompletionStage<Boolean> release(String recordKey, long token);

  /** Short name for logs, as {@link RecordStore#describe}. */
  String describe();

  /** {@code store}'s calls made on the caller's thread, their stages complete when they return. */
  static AsyncRecordStore inline(RecordStore store) {
    return new AsyncRecordStore() {
      @Override
      public CompletionStage<ClaimResult> claim(
          String recordKey, byte[] fingerprint, Duration lease) {
        return now(() -> store.claim(recordKey, fingerprint, lease));
      }

      @Override
      public CompletionStage<Boolean> issue(String recordKey, String scope, Duration ttl) {
        return now(() -> store.issue(recordKey, scope, ttl));
      }

      @Override
      public CompletionStage<ClaimResult> claimIssued(
          String recordKey, String scope, byte[] fingerprint, Duration lease) {
        return now(() -> store.claimIssued(recordKey, scope, fingerprint, lease));
      }

      @Override
      public CompletionStage<Boolean> complete(
          String recordKey, long token, HttpAnswer response, Duration ttl) {
        return now(() -> store.complete(recordKey, token, response, ttl));
      }

      @Override
      public CompletionStage<Boolean> release(String recordKey, long token) {
        return now(() -> store.release(recordKey, token));
      }

      @Override
      public String describe() {
        return store.describe();
      }
    };
  }

  /** A blocking store call. */
  interface Call<T> {
    T run() throws StoreException;
  }

  /** The call's result, or whatever it threw (an Error too), as a completed stage. */
  static <T> CompletionStage<T> now(Call<T> call) {
    try {
      return CompletableFuture.completedFuture(call.run());
    } catch (Throwable t) {
      return CompletableFuture.failedFuture(t);
    }
  }
}
