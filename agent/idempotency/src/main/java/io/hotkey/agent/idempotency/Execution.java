package io.hotkey.agent.idempotency;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A won claim: the handler runs, then the adapter reports exactly one end. The first call wins,
 * later ones are ignored, so an adapter may report from several places (stream close, handler
 * return, exception) without care.
 */
public final class Execution {
  private final IdempotencyEngine engine;
  final String recordKey;
  final long token;

  /** How long the answer is replayed once stored: the ttl, or the dedupe window. */
  final Duration keepFor;

  private final AtomicBoolean ended = new AtomicBoolean();

  Execution(IdempotencyEngine engine, String recordKey, long token, Duration keepFor) {
    this.engine = engine;
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
   */
  public void finish(
      int status, List<Map.Entry<String, String>> headers, byte[] body, boolean captured) {
    if (ended.compareAndSet(false, true)) {
      try {
        engine.finish(this, status, headers, body, captured);
      } catch (Throwable t) {
        engine.finishFailed(this, t);
      }
    }
  }

  /**
   * The handler failed, or the adapter could not follow it: release the claim.
   *
   * @param why what happened, for the log
   */
  public void fail(ReleaseReason why) {
    if (ended.compareAndSet(false, true)) {
      engine.failed(this, why);
    }
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
