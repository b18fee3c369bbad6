package io.hotkey.agent.idempotency;

import io.hotkey.agent.core.RateLimitedLog;
import io.hotkey.agent.core.Sha256;
import io.hotkey.agent.idempotency.store.AsyncRecordStore;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

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
  private final AsyncRecordStore inlineStore;
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
    this.inlineStore = AsyncRecordStore.inline(store);
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
   * Decides for a request on {@code route}, calling the store on this thread. Never throws for
   * store trouble (that is {@link Outcome#STORE_FAILURE} or a pass-through); an IOException comes
   * only from reading the body.
   */
  public Decision decide(Route route, RequestHead head, BodySource body) throws IOException {
    return joinInline(decide(route, head, body, inlineStore));
  }

  /**
   * Decides as {@link #decide(Route, RequestHead, BodySource)} does, through {@code calls} (this
   * engine's store reached another way, e.g. from a server's event loop): the stage completes where
   * the store's answer arrives, and never exceptionally for store trouble. The execution it may
   * hold completes or releases its claim through {@code calls} too.
   */
  public CompletionStage<Decision> decide(
      Route route, RequestHead head, BodySource body, AsyncRecordStore calls) throws IOException {
    try {
      return route.tokenEndpoint
          ? issueToken(callerScope.of(head), calls)
          : decideRequest(route, head, body, calls);
    } catch (CallerScope.InvalidCookie e) {
      meters.invalidCookie.increment();
      return CompletableFuture.completedFuture(
          Decision.answer(Outcome.INVALID_COOKIE, Problems.invalidCookie(e.getMessage())));
    }
  }

  private CompletionStage<Decision> decideRequest(
      Route route, RequestHead head, BodySource body, AsyncRecordStore calls)
      throws IOException, CallerScope.InvalidCookie {
    String key;
    try {
      key = IdempotencyKeys.fromHeaderValues(head.headerValues(settings.header));
    } catch (IllegalArgumentException invalid) {
      meters.invalidKey.increment();
      return decided(
          Decision.answer(
              Outcome.INVALID_KEY, Problems.invalidKey(settings.header, invalid.getMessage())));
    }
    if (route.token != null) {
      return useToken(head, body, key, calls);
    }
    if (key != null) {
      return claimKey(route.keyPattern(), head, body, key, calls);
    }
    if (route.dedupe != null) {
      return dedupe(route.dedupe, head, body, calls);
    }
    if (settings.requireKey) {
      meters.missingKey.increment();
      return decided(Decision.answer(Outcome.MISSING_KEY, Problems.missingKey(settings.header)));
    }
    meters.passedThrough.increment();
    return decided(Decision.pass());
  }

  private CompletionStage<Decision> claimKey(
      RoutePattern pattern, RequestHead head, BodySource body, String key, AsyncRecordStore calls)
      throws IOException, CallerScope.InvalidCookie {
    String scope = callerScope.of(head);
    byte[] bytes = body.read(settings.maxBody);
    if (bytes == null) {
      meters.bodyTooLarge.increment();
      return decided(Decision.pass());
    }
    String recordKey = pattern + " " + head.method() + " " + scope + " " + key;
    byte[] fingerprint = fingerprint(head, bytes);
    return start(() -> calls.claim(recordKey, fingerprint, settings.lease))
        .handle(
            (found, failure) ->
                failure != null
                    ? claimFailed(failure)
                    : settle(found, fingerprint, recordKey, settings.ttl, false, calls));
  }

  /** The keyless guard: identical requests of one caller share a record for the dedupe window. */
  private CompletionStage<Decision> dedupe(
      RoutePattern pattern, RequestHead head, BodySource body, AsyncRecordStore calls)
      throws IOException, CallerScope.InvalidCookie {
    String scope = callerScope.of(head);
    byte[] bytes = body.read(settings.maxBody);
    if (bytes == null) {
      meters.bodyTooLarge.increment();
      return decided(Decision.pass());
    }
    byte[] fingerprint = fingerprint(head, bytes);
    String recordKey = "dedupe " + pattern + " " + scope + " " + Sha256.hex(fingerprint);
    return start(() -> calls.claim(recordKey, fingerprint, settings.lease))
        .handle(
            (found, failure) ->
                failure != null
                    ? claimFailed(failure)
                    : settle(found, fingerprint, recordKey, settings.dedupeWindow, true, calls));
  }

  private CompletionStage<Decision> issueToken(String scope, AsyncRecordStore calls) {
    String token = tokens.newToken();
    return start(() -> calls.issue(Tokens.recordKey(token), scope, settings.tokenTtl))
        .handle(
            (issued, failed) -> {
              Throwable failure = unwrap(failed);
              if (failure instanceof Error) {
                throw (Error) failure;
              }
              if (failure == null && !issued) {
                // 192 random bits met an existing token: the random source is broken, not unlucky
                failure = new IllegalStateException("a freshly drawn token already exists");
              }
              if (failure != null) {
                meters.storeFailure.increment();
                log.warn(
                    "issue failed",
                    "idempotency store "
                        + calls.describe()
                        + " failed on issuing a token: "
                        + failure);
                return Decision.answer(
                    Outcome.STORE_FAILURE, Problems.storeUnavailable(settings.header));
              }
              meters.tokenIssued.increment();
              return Decision.answer(
                  Outcome.TOKEN_ISSUED, Tokens.issued(token, settings.tokenTtl, settings.header));
            });
  }

  private CompletionStage<Decision> useToken(
      RequestHead head, BodySource body, String token, AsyncRecordStore calls)
      throws IOException, CallerScope.InvalidCookie {
    String endpoint = String.valueOf(settings.tokenEndpoint);
    if (token == null) {
      meters.tokenMissing.increment();
      return decided(
          Decision.answer(Outcome.TOKEN_MISSING, Problems.tokenMissing(settings.header, endpoint)));
    }
    if (!Tokens.isWellFormed(token)) {
      meters.tokenUnknown.increment();
      return decided(
          Decision.answer(
              Outcome.TOKEN_UNKNOWN, Problems.tokenUnknown(settings.header, endpoint, false)));
    }
    String scope = callerScope.of(head);
    byte[] bytes = body.read(settings.maxBody);
    if (bytes == null) {
      meters.bodyTooLarge.increment();
      return decided(
          Decision.answer(Outcome.BODY_TOO_LARGE, Problems.bodyTooLarge(settings.maxBody)));
    }
    byte[] fingerprint = fingerprint(head, bytes);
    String recordKey = Tokens.recordKey(token);
    return start(() -> calls.claimIssued(recordKey, scope, fingerprint, settings.lease))
        .handle(
            (found, failure) -> {
              if (failure != null) {
                return claimFailed(failure);
              }
              switch (found.kind()) {
                case NOT_ISSUED:
                  meters.tokenUnknown.increment();
                  return Decision.answer(
                      Outcome.TOKEN_UNKNOWN,
                      Problems.tokenUnknown(settings.header, endpoint, true));
                case WRONG_CALLER:
                  meters.tokenWrongCaller.increment();
                  return Decision.answer(
                      Outcome.TOKEN_WRONG_CALLER,
                      Problems.tokenWrongCaller(settings.header, endpoint));
                default:
                  return settle(found, fingerprint, recordKey, settings.ttl, false, calls);
              }
            });
  }

  /** What a claim of a key, a keyless request or a token found becomes. */
  private Decision settle(
      ClaimResult found,
      byte[] fingerprint,
      String recordKey,
      Duration keepFor,
      boolean keyless,
      AsyncRecordStore calls) {
    switch (found.kind()) {
      case CLAIMED:
        meters.executed.increment();
        return Decision.execute(new Execution(this, calls, recordKey, found.token(), keepFor));
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

  /** A claim that failed: the store's failure, or (an Error) the agent's. */
  private Decision claimFailed(Throwable failed) {
    Throwable failure = unwrap(failed);
    return failure instanceof Error
        ? agentFailure("claim", (Error) failure)
        : storeFailure("claim", failure);
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

  private Decision storeFailure(String operation, Throwable e) {
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

  /** Called once by {@link Execution}: store, or release; the stage never fails. */
  CompletionStage<Void> finish(
      Execution execution,
      int status,
      List<Map.Entry<String, String>> headers,
      byte[] body,
      boolean captured) {
    if (!isStored(status)) {
      meters.released.increment();
      return release(execution);
    }
    if (!captured || body == null || body.length > settings.maxBody) {
      meters.notStored.increment();
      return release(execution);
    }
    HttpAnswer answer = new HttpAnswer(status, ResponseHeaderPolicy.filter(headers), body);
    return start(
            () ->
                execution.calls.complete(
                    execution.recordKey, execution.token, answer, execution.keepFor))
        .handle(
            (done, failed) -> {
              Throwable failure = unwrap(failed);
              if (failure instanceof Error) {
                return finishFailed(execution, failure);
              }
              if (failure != null) {
                meters.storeFailure.increment();
                log.warn(
                    "complete failed",
                    "idempotency store "
                        + store.describe()
                        + " failed on complete (the claim blocks the key until its lease ends): "
                        + failure);
              } else if (done) {
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
              return DONE;
            })
        .thenCompose(next -> next);
  }

  /**
   * Called by {@link Execution} when storing its answer threw an Error (the store's own failures
   * are handled in {@link #finish}): the claim is released, so a retry runs the request again
   * rather than waiting out the lease.
   */
  CompletionStage<Void> finishFailed(Execution execution, Throwable error) {
    meters.released.increment();
    log.warn(
        "finish agent error",
        "idempotency answer not stored after an internal error of the agent, its claim is"
            + " released: "
            + error);
    return release(execution);
  }

  /**
   * Called once by {@link Execution}: the handler failed or could not be followed. The client may
   * never see why its key was released (a dropped connection, an async cycle that timed out), so
   * the reason is logged, once a second at most for each.
   */
  CompletionStage<Void> failed(Execution execution, ReleaseReason why) {
    meters.released.increment();
    log.info(
        why.name(),
        "idempotency claim released without an answer: "
            + why.description()
            + "; a retry with its key runs the request again");
    return release(execution);
  }

  /** Releases the execution's claim; the stage never fails. */
  CompletionStage<Void> release(Execution execution) {
    return start(() -> execution.calls.release(execution.recordKey, execution.token))
        .handle(
            (released, failure) -> {
              if (failure != null) {
                meters.storeFailure.increment();
                log.warn(
                    "release failed",
                    "idempotency store "
                        + store.describe()
                        + " failed on release (the claim blocks the key until its lease ends): "
                        + unwrap(failure));
              } else if (!released) {
                meters.fencedOut.increment();
              }
              return null;
            });
  }

  private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

  private static <T> CompletionStage<T> decided(T decision) {
    return CompletableFuture.completedFuture(decision);
  }

  /** The store call's stage; one that throws instead (an agent error) fails the stage. */
  private static <T> CompletionStage<T> start(Supplier<CompletionStage<T>> call) {
    try {
      return call.get();
    } catch (Throwable t) {
      return CompletableFuture.failedFuture(t);
    }
  }

  /** What a stage failed with, without the wrapper a dependent stage adds. */
  private static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }

  /** The result of a stage made of inline store calls, which is complete already. */
  static <T> T joinInline(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      Throwable cause = unwrap(e);
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw e;
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
