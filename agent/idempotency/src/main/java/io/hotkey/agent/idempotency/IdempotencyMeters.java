package io.hotkey.agent.idempotency;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Outcome counters of the idempotency engine. Exporters (JMX, Micrometer) read {@link #snapshot()}
 * or the getters; names in the snapshot are meant as the {@code outcome} tag of {@code
 * hotkey.idempotency.requests}.
 */
public final class IdempotencyMeters {
  final LongAdder executed = new LongAdder();
  final LongAdder replayed = new LongAdder();
  final LongAdder conflict = new LongAdder();
  final LongAdder mismatch = new LongAdder();
  final LongAdder missingKey = new LongAdder();
  final LongAdder invalidKey = new LongAdder();
  final LongAdder storeFailure = new LongAdder();
  final LongAdder passedThrough = new LongAdder();
  final LongAdder bodyTooLarge = new LongAdder();
  final LongAdder stored = new LongAdder();
  final LongAdder released = new LongAdder();
  final LongAdder notStored = new LongAdder();
  final LongAdder fencedOut = new LongAdder();
  final LongAdder deduplicated = new LongAdder();
  final LongAdder invalidCookie = new LongAdder();
  final LongAdder tokenIssued = new LongAdder();
  final LongAdder tokenMissing = new LongAdder();
  final LongAdder tokenUnknown = new LongAdder();
  final LongAdder tokenWrongCaller = new LongAdder();

  /** Claims won: the handler ran. */
  public long executed() {
    return executed.sum();
  }

  public long replayed() {
    return replayed.sum();
  }

  /** 409 answers: the key's first request was still running. */
  public long conflict() {
    return conflict.sum();
  }

  /** 422 answers: key reused with another payload. */
  public long mismatch() {
    return mismatch.sum();
  }

  public long missingKey() {
    return missingKey.sum();
  }

  public long invalidKey() {
    return invalidKey.sum();
  }

  /**
   * Store unreachable or failing, whatever the policy (503 or pass-through), including failures
   * after the handler.
   */
  public long storeFailure() {
    return storeFailure.sum();
  }

  /**
   * Requests on a configured route without a key (not required) or passed through after a store
   * failure.
   */
  public long passedThrough() {
    return passedThrough.sum();
  }

  /**
   * Requests whose body exceeded max-body: passed through without deduplication, or answered 413 on
   * a token route.
   */
  public long bodyTooLarge() {
    return bodyTooLarge.sum();
  }

  /** Responses stored for replay. */
  public long stored() {
    return stored.sum();
  }

  /** Claims released after 5xx, an exception, or a transient 4xx (408, 425, 429). */
  public long released() {
    return released.sum();
  }

  /**
   * Responses not stored because they could not be captured whole (over max-body, unfinished
   * stream); claim released.
   */
  public long notStored() {
    return notStored.sum();
  }

  /** Completions or releases refused because a newer claim owns the key (the lease had expired). */
  public long fencedOut() {
    return fencedOut.sum();
  }

  /** Keyless duplicates answered with the first request's stored answer. */
  public long deduplicated() {
    return deduplicated.sum();
  }

  /** 400 answers: a scope cookie too long or with a control character. */
  public long invalidCookie() {
    return invalidCookie.sum();
  }

  public long tokenIssued() {
    return tokenIssued.sum();
  }

  /** 400 answers: a token route without a token. */
  public long tokenMissing() {
    return tokenMissing.sum();
  }

  /** 400 answers: a malformed, unknown or expired token. */
  public long tokenUnknown() {
    return tokenUnknown.sum();
  }

  /** 400 answers: a token issued to another caller. */
  public long tokenWrongCaller() {
    return tokenWrongCaller.sum();
  }

  public Map<String, Long> snapshot() {
    Map<String, Long> values = new LinkedHashMap<>();
    values.put("executed", executed());
    values.put("replayed", replayed());
    values.put("conflict", conflict());
    values.put("mismatch", mismatch());
    values.put("missing_key", missingKey());
    values.put("invalid_key", invalidKey());
    values.put("store_failure", storeFailure());
    values.put("passed_through", passedThrough());
    values.put("body_too_large", bodyTooLarge());
    values.put("stored", stored());
    values.put("released", released());
    values.put("not_stored", notStored());
    values.put("fenced_out", fencedOut());
    values.put("deduplicated", deduplicated());
    values.put("invalid_cookie", invalidCookie());
    values.put("token_issued", tokenIssued());
    values.put("token_missing", tokenMissing());
    values.put("token_unknown", tokenUnknown());
    values.put("token_wrong_caller", tokenWrongCaller());
    return values;
  }

  @Override
  public String toString() {
    return snapshot().toString();
  }
}
