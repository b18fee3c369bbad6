package io.hotkey.agent.idempotency;

import io.hotkey.agent.core.RateLimitedLog;
import io.hotkey.agent.idempotency.store.ClaimResult;
import io.hotkey.agent.idempotency.store.RecordStore;
import io.hotkey.config.RoutePattern;
import io.hotkey.config.RouteTable;
import io.hotkey.config.StoreFailurePolicy;
import java.io.IOException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The idempotency layer, independent of any server: adapters match the route, hand over the request
 * head and (lazily) its body, and act on the {@link Decision}. Semantics follow
 * draft-ietf-httpapi-idempotency-key-header and docs/architecture.md:
 *
 * <ul>
 *   <li>the caller's scope is the SHA-256 of the scope headers, the principal and the scope cookies
 *       ({@link CallerScope}); records of two scopes never meet;
 *   <li>a key's record = route pattern + method + scope + key; a keyless request on a dedupe route
 *       is filed under route + scope + fingerprint, replayed for the dedupe window; a token's
 *       record is the token's own, issued to one scope and claimed by its first use;
 *   <li>fingerprint = SHA-256 of method, raw path, raw query and body: a key reused with another
 *       fingerprint gets 422, whether the first request is still running or finished;
 *   <li>after the handler, final statuses below 500 are stored (2xx, 3xx and 4xx) except the
 *       transient 408, 425 and 429; 5xx, an exception, or a response that could not be captured
 *       whole releases the claim so a retry runs the handler again.
 * </ul>
 */
public final class IdempotencyEngine implements AutoCloseable {
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";

  private volatile IdempotencySettings settings;
  private final RecordStore store;
  private final CallerScope callerScope;
  private final IdempotencyMeters meters = new IdempotencyMeters();
  private final RateLimitedLog log = new RateLimitedLog();
  private final Tokens tokens = new Tokens();

  /** Supplies the request body on demand. */
  public interface BodySource {
    /** Returns the whole body, or null when it is longer than {@code limit} bytes. */
    byte[] read(long limit) throws IOException;
  }

  public IdempotencyEngine(IdempotencySettings settings, RecordStore store) {
    this.settings = settings;
    this.store = store;
    this.callerScope = new CallerScope(settings.scopeHeaders, settings.scopeCookies);
  }

  /** Returns the rules this request falls under, or null: not ours, pass through untouched. */
  public Route route(String method, String path) {
    RoutePattern endpoint = settings.tokenEndpoint;
    if (endpoint != null && endpoint.matches(method, path)) {
      return Route.tokenEndpoint();
    }
    return Route.of(
        settings.tokenRoutes.match(method, path),
        settings.routes.match(method, path),
        settings.dedupeRoutes.match(method, path));
  }

  /**
   * Decides for a request on {@code route}. Never throws for store trouble (that is {@link
   * Outcome#STORE_FAILURE} or a pass-through); an IOException comes only from reading the body.
   */
  public Decision decide(Route route, RequestHead head, BodySource body) throws IOException {
    try {
      return route.tokenEndpoint
          ? issueToken(callerScope.of(head))
          : decideRequest(route, head, body);
    } catch (CallerScope.InvalidCookie e) {
      meters.invalidCookie.increment();
      return Decision.answer(Outcome.INVALID_COOKIE, Problems.invalidCookie(e.getMessage()));
    }
  }

  private Decision decideRequest(Route route, RequestHead head, BodySource body)
      throws IOException, CallerScope.InvalidCookie {
    String key;
    try {
      key = IdempotencyKeys.fromHeaderValues(head.headerValues(settings.header));
    } catch (IllegalArgumentException invalid) {
      meters.invalidKey.increment();
      return Decision.answer(
          Outcome.INVALID_KEY, Problems.invalidKey(settings.header, invalid.getMessage()));
    }
    if (route.token != null) {
      return useToken(head, body, key);
    }
    if (key != null) {
      return claimKey(route.keyPattern(), head, body, key);
    }
    if (route.dedupe != null) {
      return dedupe(route.dedupe, head, body);
    }
    if (settings.requireKey) {
      meters.missingKey.increment();
      return Decision.answer(Outcome.MISSING_KEY, Problems.missingKey(settings.header));
    }
    meters.passedThrough.increment();
    return Decision.pass();
  }

  private Decision claimKey(RoutePattern pattern, RequestHead head, BodySource body, String key)
      throws IOException, CallerScope.InvalidCookie {
    String scope = callerScope.of(head);
    byte[] bytes = body.read(settings.maxBody);
    if (bytes == null) {
      meters.bodyTooLarge.increment();
      return Decision.pass();
    }
    String recordKey = pattern + " " + head.method() + " " + scope + " " + key;
    byte[] fingerprint = fingerprint(head, bytes);
    ClaimResult found;
    try {
      found = store.claim(recordKey, fingerprint, settings.lease);
    } catch (Exception e) {
      return storeFailure("claim", e);
    } catch (Error e) {
      return agentFailure("claim", e);
    }
    return settle(found, fingerprint, recordKey, settings.ttl, false);
  }

  /** The keyless guard: identical requests of one caller share a record for the dedupe window. */
  private Decision dedupe(RoutePattern pattern, RequestHead head, BodySource body)
      throws IOException, CallerScope.InvalidCookie {
    String scope = callerScope.of(head);
    byte[] bytes = body.read(settings.maxBody);
    if (bytes == null) {
      meters.bodyTooLarge.increment();
      return Decision.pass();
    }
    byte[] fingerprint = fingerprint(head, bytes);
    String recordKey = "dedupe " + pattern + " " + scope + " " + Fingerprints.hex(fingerprint);
    ClaimResult found;
    try {
      found = store.claim(recordKey, fingerprint, settings.lease);
    } catch (Exception e) {
      return storeFailure("claim", e);
    } catch (Error e) {
      return agentFailure("claim", e);
    }
    return settle(found, fingerprint, recordKey, settings.dedupeWindow, true);
  }

  private Decision issueToken(String scope) {
    String token = tokens.newToken();
    try {
      if (!store.issue(Tokens.recordKey(token), scope, settings.tokenTtl)) {
        // 192 random bits met an existing token: the random source is broken, not unlucky
        throw new IllegalStateException("a freshly drawn token already exists");
      }
    } catch (Exception e) {
      meters.storeFailure.increment();
      log.warn(
          "issue failed",
          "idempotency store " + store.describe() + " failed on issuing a token: " + e);
      return Decision.answer(Outcome.STORE_FAILURE, Problems.storeUnavailable(settings.header));
    }
    meters.tokenIssued.increment();
    return Decision.answer(
        Outcome.TOKEN_ISSUED, Tokens.issued(token, settings.tokenTtl, settings.header));
  }

  private Decision useToken(RequestHead head, BodySource body, String token)
      throws IOException, CallerScope.InvalidCookie {
    String endpoint = String.valueOf(settings.tokenEndpoint);
    if (token == null) {
      meters.tokenMissing.increment();
      return Decision.answer(
          Outcome.TOKEN_MISSING, Problems.tokenMissing(settings.header, endpoint));
    }
    if (!Tokens.isWellFormed(token)) {
      meters.tokenUnknown.increment();
      return Decision.answer(
          Outcome.TOKEN_UNKNOWN, Problems.tokenUnknown(settings.header, endpoint, false));
    }
    String scope = callerScope.of(head);
    byte[] bytes = body.read(settings.maxBody);
    if (bytes == null) {
      meters.bodyTooLarge.increment();
      return Decision.answer(Outcome.BODY_TOO_LARGE, Problems.bodyTooLarge(settings.maxBody));
    }
    byte[] fingerprint = fingerprint(head, bytes);
    String recordKey = Tokens.recordKey(token);
    ClaimResult found;
    try {
      found = store.claimIssued(recordKey, scope, fingerprint, settings.lease);
    } catch (Exception e) {
      return storeFailure("claim", e);
    } catch (Error e) {
      return agentFailure("claim", e);
    }
    switch (found.kind()) {
      case NOT_ISSUED:
        meters.tokenUnknown.increment();
        return Decision.answer(
            Outcome.TOKEN_UNKNOWN, Problems.tokenUnknown(settings.header, endpoint, true));
      case WRONG_CALLER:
        meters.tokenWrongCaller.increment();
        return Decision.answer(
            Outcome.TOKEN_WRONG_CALLER, Problems.tokenWrongCaller(settings.header, endpoint));
      default:
        return settle(found, fingerprint, recordKey, settings.ttl, false);
    }
  }

  /** What a claim of a key, a keyless request or a token found becomes. */
  private Decision settle(
      ClaimResult found, byte[] fingerprint, String recordKey, Duration keepFor, boolean keyless) {
    switch (found.kind()) {
      case CLAIMED:
        meters.executed.increment();
        return Decision.execute(new Execution(this, recordKey, found.token(), keepFor));
      case IN_PROGRESS:
        if (!MessageDigest.isEqual(fingerprint, found.fingerprint())) {
          return mismatch();
        }
        meters.conflict.increment();
        long seconds = Math.max(1, (found.remainingMillis() + 999) / 1000);
        return Decision.answer(
            Outcome.CONFLICT,
            keyless
                ? Problems.duplicateInProgress(seconds)
                : Problems.inProgress(settings.header, seconds));
      case COMPLETED:
        if (!MessageDigest.isEqual(fingerprint, found.fingerprint())) {
          return mismatch();
        }
        (keyless ? meters.deduplicated : meters.replayed).increment();
        return Decision.answer(
            keyless ? Outcome.DEDUPLICATED : Outcome.REPLAY,
            found.response().withHeader(REPLAYED_HEADER, "true"));
      default:
        throw new IllegalStateException("claim found " + found.kind());
    }
  }

  private static byte[] fingerprint(RequestHead head, byte[] body) {
    return Fingerprints.request(head.method(), head.rawPath(), head.rawQuery(), body);
  }

  private Decision mismatch() {
    meters.mismatch.increment();
    return Decision.answer(Outcome.MISMATCH, Problems.keyReused(settings.header));
  }

  /**
   * The store call failed with an Error: a class or method the agent links against is missing (a
   * library on the application's class path that differs from the one the agent was built for), or
   * the JVM is in trouble. That is the agent's defect, not the store's answer, so the request
   * passes through undeduplicated whatever the store-failure policy says.
   */
  private Decision agentFailure(String operation, Error e) {
    meters.passedThrough.increment();
    log.warn(
        operation + " agent error",
        "idempotency store "
            + store.describe()
            + " failed on "
            + operation
            + " with an internal error of the agent, the request passes through: "
            + e);
    return Decision.pass();
  }

  private Decision storeFailure(String operation, Exception e) {
    meters.storeFailure.increment();
    log.warn(
        operation + " failed",
        "idempotency store " + store.describe() + " failed on " + operation + ": " + e);
    if (settings.onStoreFailure == StoreFailurePolicy.ALLOW) {
      meters.passedThrough.increment();
      return Decision.pass();
    }
    return Decision.answer(Outcome.STORE_FAILURE, Problems.storeUnavailable(settings.header));
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
      if (store.complete(execution.recordKey, execution.token, answer, execution.keepFor)) {
        meters.stored.increment();
      } else {
        meters.fencedOut.increment();
        log.warn(
            "fenced out",
            "idempotency record for a completed request was taken over by a newer"
                + " claim (the lease "
                + settings.lease.toMillis()
                + "ms had expired); its response was not stored");
      }
    } catch (Exception e) {
      meters.storeFailure.increment();
      log.warn(
          "complete failed",
          "idempotency store "
              + store.describe()
              + " failed on complete (the claim blocks the key until its lease ends): "
              + e);
    }
  }

  /**
   * Called by {@link Execution} when storing its answer threw an Error (the store's own failures
   * are handled in {@link #finish}): the claim is released, so a retry runs the request again
   * rather than waiting out the lease.
   */
  void finishFailed(Execution execution, Throwable error) {
    meters.released.increment();
    log.warn(
        "finish agent error",
        "idempotency answer not stored after an internal error of the agent, its claim is"
            + " released: "
            + error);
    release(execution);
  }

  /**
   * Called once by {@link Execution}: the handler failed or could not be followed. The client may
   * never see why its key was released (a dropped connection, an async cycle that timed out), so
   * the reason is logged, once a second at most for each.
   */
  void failed(Execution execution, ReleaseReason why) {
    meters.released.increment();
    log.info(
        why.name(),
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
    } catch (Exception | Error e) {
      meters.storeFailure.increment();
      log.warn(
          "release failed",
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

  public IdempotencyMeters meters() {
    return meters;
  }

  /**
   * A reloaded configuration's routes and require-key, for requests that arrive from now on (a
   * request already routed finishes under the rules it started with).
   */
  public void retune(RouteTable routes, boolean requireKey) {
    settings = settings.withKeyRules(routes, requireKey);
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
