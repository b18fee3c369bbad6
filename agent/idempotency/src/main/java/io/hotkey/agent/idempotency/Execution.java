package io.hotkey.agent.idempotency;

import io.hotkey.agent.idempotency.store.AsyncRecordStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A won claim: the handler runs, then the adapter reports exactly one end. The first call wins,
 * later ones are ignored, so an adapter may report from several places (stream close, handler
 * return, exception) without care.
 */
public final class Execution {
  private final IdempotencyEngine engine;

  /** How the claim was made, and so how it is completed or released. */
  final AsyncRecordStore calls;

  final String recordKey;
  final long token;

  /** How long the answer is replayed once stored: the ttl, or the dedupe window. */
  final Duration keepFor;

  private final AtomicBoolean ended = new AtomicBoolean();

  private static final CompletionStage<Void> ALREADY_ENDED =
      CompletableFuture.completedFuture(null);

  Execution(
      IdempotencyEngine engine,
      AsyncRecordStore calls,
      String recordKey,
      long token,
      Duration keepFor) {
    this.engine = engine;
    this.calls = calls;
    this.recordKey = recordKey;
    this.token = token;
    this.keepFor = keepFor;
  }

  /**
   * The handler produced a response.
   *
   * @param headers every response header (the engine keeps only the replayable ones)
   * @param body the captured body (at most max-body bytes)
   * @param captured false when the body could not be captured whole (larger than max-body, stream
   *     not finished): the response is then not stored and the claim is released
   * @return done when the answer is stored or the claim released (at once with a blocking store);
   *     never fails
   */
  public CompletionStage<Void> finish(
      int status, List<Map.Entry<String, String>> headers, byte[] body, boolean captured) {
    if (!ended.compareAndSet(false, true)) {
      return ALREADY_ENDED;
    }
    try {
      return engine.finish(this, status, headers, body, captured);
    } catch (Throwable t) {
      return engine.finishFailed(this, t);
    }
  }

  /**
   * The handler failed, or the adapter could not follow it: release the claim.
   *
   * @param why what happened, for the log
   * @return done when the claim is released (at once with a blocking store); never fails
   */
  public CompletionStage<Void> fail(ReleaseReason why) {
    return ended.compareAndSet(false, true) ? engine.failed(this, why) : ALREADY_ENDED;
  }

  public boolean ended() {
    return ended.get();
  }

  /** Largest body the engine will store; adapters stop capturing beyond it. */
  public long maxBody() {
    return engine.settings().maxBody;
  }

  /** The fencing token of this claim (diagnostics and tests). */
  public long token() {
    return token;
  }
}
