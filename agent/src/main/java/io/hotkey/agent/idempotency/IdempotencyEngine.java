package io.hotkey.agent.idempotency;

import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.idempotency.store.ClaimResult;
import io.hotkey.agent.idempotency.store.RecordStore;
import io.hotkey.config.RoutePattern;
import io.hotkey.config.StoreFailurePolicy;
import java.io.IOException;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Idempotency-Key layer, independent of any server: adapters match the route, hand over the
 * request head and (lazily) its body, and act on the {@link Decision}. Semantics follow
 * draft-ietf-httpapi-idempotency-key-header and docs/architecture.md:
 *
 * <ul>
 *   <li>record key = route pattern + method + SHA-256 of the scope headers' values + key, so
 *       different routes, methods, callers and keys never share a record;
 *   <li>fingerprint = SHA-256 of method, raw path, raw query and body: a key reused with another
 *       fingerprint gets 422, whether the first request is still running or finished;
 *   <li>after the handler, final statuses below 500 are stored (2xx, 3xx and 4xx) except the
 *       transient 408, 425 and 429; 5xx, an exception, or a response that could not be captured
 *       whole releases the claim so a retry runs the handler again.
 * </ul>
 */
public final class IdempotencyEngine implements AutoCloseable {
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";
  private static final long LOG_INTERVAL_NANOS = 1_000_000_000L;

  private final IdempotencySettings settings;
  private final RecordStore store;
  private final IdempotencyMeters meters = new IdempotencyMeters();

  /** When each kind of log line was last written; the kinds are a handful of constants. */
  private final Map<String, AtomicLong> lastLogged = new ConcurrentHashMap<>();

  /** Supplies the request body on demand. */
  public interface BodySource {
    /**
     * @return the whole body, or null when it is longer than {@code limit} bytes
     */
    byte[] read(long limit) throws IOException;
  }

  public IdempotencyEngine(IdempotencySettings settings, RecordStore store) {
    this.settings = settings;
    this.store = store;
  }

  /**
   * @return the configured route this request falls under, or null: not ours, pass through
   *     untouched
   */
  public RoutePattern route(String method, String path) {
    return settings.routes.match(method, path);
  }

  /**
   * Decides for a request on {@code route}. Never throws for store trouble (that is {@link
   * Outcome#STORE_FAILURE} or a pass-through); an IOException comes only from reading the body.
   */
  public Decision decide(RoutePattern route, RequestHead head, BodySource body) throws IOException {
    String key;
    try {
      key = IdempotencyKeys.fromHeaderValues(head.headerValues(settings.header));
    } catch (IllegalArgumentException invalid) {
      meters.invalidKey.increment();
      return Decision.answer(
          Outcome.INVALID_KEY,
          Problems.answer(
              400,
              "invalid-key",
              "Invalid " + settings.header,
              "The " + settings.header + " header is " + invalid.getMessage() + ".",
              null));
    }
    if (key == null) {
      if (settings.requireKey) {
        meters.missingKey.increment();
        return Decision.answer(
            Outcome.MISSING_KEY,
            Problems.answer(
                400,
                "missing-key",
                "Missing " + settings.header,
                "This route requires an "
                    + settings.header
                    + " header; send a unique key (e.g. a UUID) and reuse it"
                    + " when retrying.",
                null));
      }
      meters.passedThrough.increment();
      return Decision.pass();
    }
    byte[] bytes = body.read(settings.maxBody);
    if (bytes == null) {
      meters.bodyTooLarge.increment();
      return Decision.pass();
    }
    String recordKey = recordKey(route, head, key);
    byte[] fingerprint =
        Fingerprints.request(head.method(), head.rawPath(), head.rawQuery(), bytes);
    ClaimResult found;
    try {
      found = store.claim(recordKey, fingerprint, settings.lease);
    } catch (Exception e) {
      return storeFailure("claim", e);
    }
    switch (found.kind()) {
      case CLAIMED:
        meters.executed.increment();
        return Decision.execute(new Execution(this, recordKey, found.token()));
      case IN_PROGRESS:
        if (!MessageDigest.isEqual(fingerprint, found.fingerprint())) {
          return mismatch();
        }
        meters.conflict.increment();
        long seconds = Math.max(1, (found.remainingMillis() + 999) / 1000);
        return Decision.answer(
            Outcome.CONFLICT,
            Problems.answer(
                409,
                "in-progress",
                "Request in progress",
                "A request with this "
                    + settings.header
                    + " is still being processed; retry after it finishes.",
                Long.toString(seconds)));
      default:
        if (!MessageDigest.isEqual(fingerprint, found.fingerprint())) {
          return mismatch();
        }
        meters.replayed.increment();
        return Decision.answer(
            Outcome.REPLAY, found.response().withHeader(REPLAYED_HEADER, "true"));
    }
  }

  private Decision mismatch() {
    meters.mismatch.increment();
    return Decision.answer(
        Outcome.MISMATCH,
        Problems.answer(
            422,
            "key-reused",
            "Idempotency key reused",
            "This "
                + settings.header
                + " was already used with a different request (method, path, query or body).",
            null));
  }

  private Decision storeFailure(String operation, Exception e) {
    meters.storeFailure.increment();
    logRateLimited(
        operation + " failed",
        true,
        "idempotency store " + store.describe() + " failed on " + operation + ": " + e);
    if (settings.onStoreFailure == StoreFailurePolicy.ALLOW) {
      meters.passedThrough.increment();
      return Decision.pass();
    }
    return Decision.answer(
        Outcome.STORE_FAILURE,
        Problems.answer(
            503,
            "store-unavailable",
            "Idempotency store unavailable",
            "The request was not processed because its "
                + settings.header
                + " could not be checked; retry later.",
            "1"));
  }

  /**
   * Route pattern, method, scope hash, key: separated by single spaces (the key is last and may
   * hold anything).
   */
  String recordKey(RoutePattern route, RequestHead head, String key) {
    return route
        + " "
        + head.method()
        + " "
        + Fingerprints.scope(settings.scopeHeaders, head::headerValues)
        + " "
        + key;
  }

  /** Called once by {@link Execution}: store, or release. */
  void finish(
      Execution execution,
      int status,
      List<Map.Entry<String, String>> headers,
      byte[] body,
      boolean captured) {
    if (!isStored(status)) {
      meters.released.increment();
      release(execution);
      return;
    }
    if (!captured || body == null || body.length > settings.maxBody) {
      meters.notStored.increment();
      release(execution);
      return;
    }
    HttpAnswer answer = new HttpAnswer(status, ResponseHeaderPolicy.filter(headers), body);
    try {
      if (store.complete(execution.recordKey, execution.token, answer, settings.ttl)) {
        meters.stored.increment();
      } else {
        meters.fencedOut.increment();
        logRateLimited(
            "fenced out",
            true,
            "idempotency record for a completed request was taken over by a newer"
                + " claim (the lease "
                + settings.lease.toMillis()
                + "ms had expired); its response was not stored");
      }
    } catch (Exception e) {
      meters.storeFailure.increment();
      logRateLimited(
          "complete failed",
          true,
          "idempotency store "
              + store.describe()
              + " failed on complete (the claim blocks the key until its lease ends): "
              + e);
    }
  }

  /**
   * Called once by {@link Execution}: the handler failed or could not be followed. The client may
   * never see why its key was released (a dropped connection, an async cycle that timed out), so
   * the reason is logged, once a second at most for each.
   */
  void failed(Execution execution, ReleaseReason why) {
    meters.released.increment();
    logRateLimited(
        why.name(),
        false,
        "idempotency claim released without an answer: "
            + why.description()
            + "; a retry with its key runs the request again");
    release(execution);
  }

  void release(Execution execution) {
    try {
      if (!store.release(execution.recordKey, execution.token)) {
        meters.fencedOut.increment();
      }
    } catch (Exception e) {
      meters.storeFailure.increment();
      logRateLimited(
          "release failed",
          true,
          "idempotency store "
              + store.describe()
              + " failed on release (the claim blocks the key until its lease ends): "
              + e);
    }
  }

  /**
   * Final statuses that are answers to the request itself; transient ones (408, 425, 429) invite a
   * retry.
   */
  static boolean isStored(int status) {
    return status >= 200 && status < 500 && status != 408 && status != 425 && status != 429;
  }

  private void logRateLimited(String kind, boolean warning, String message) {
    AtomicLong last =
        lastLogged.computeIfAbsent(
            kind, k -> new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS));
    long now = System.nanoTime();
    long then = last.get();
    if (now - then >= LOG_INTERVAL_NANOS && last.compareAndSet(then, now)) {
      if (warning) {
        AgentLog.warn(message);
      } else {
        AgentLog.info(message);
      }
    }
  }

  public IdempotencyMeters meters() {
    return meters;
  }

  public IdempotencySettings settings() {
    return settings;
  }

  public RecordStore store() {
    return store;
  }

  @Override
  public void close() {
    store.close();
  }
}
