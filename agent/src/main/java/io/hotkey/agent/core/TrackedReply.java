package io.hotkey.agent.core;

import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.cache.ReadFill;
import java.nio.ByteBuffer;

/**
 * What the agent waits for in one command's reply, for clients whose replies are decoded on another
 * thread than the caller's (Lettuce): the keys it writes, invalidated as soon as its reply starts
 * (Redis has applied the write by then, and the caller cannot have seen the completion yet), and the
 * local entry it fills, recorded callback by callback.
 *
 * <p>Events arrive on the connection's I/O thread, the end of the command possibly on another
 * (timeouts, cancellation), hence the lock; it is uncontended in practice.
 */
final class TrackedReply {
  private final KeyVersions versions;
  private final InFlightWrites inFlight;
  private final NearCache cache;
  private WriteSet writes;
  private ReadFill fill;
  private ReplyTape.Recorder recorder;

  TrackedReply(KeyVersions versions, InFlightWrites inFlight, NearCache cache) {
    this.versions = versions;
    this.inFlight = inFlight;
    this.cache = cache;
  }

  synchronized void addWrites(WriteSet added) {
    if (writes == null) {
      writes = new WriteSet();
    }
    added.addTo(writes);
    added.acquire(inFlight);
  }

  synchronized void startFill(ReadFill fill, long maxBytes) {
    if (this.fill != null) {
      cache.abandon(this.fill);
    }
    this.fill = fill;
    this.recorder = new ReplyTape.Recorder(maxBytes);
  }

  /** Any part of the reply arrived: the writes are applied; an error reply (a cluster redirection, say) may be retried elsewhere. */
  private void replyStarted(boolean error) {
    if (writes == null) {
      return;
    }
    writes.bump(versions);
    if (!error) {
      settleWrites(false);
    }
  }

  private void settleWrites(boolean bump) {
    if (bump) {
      writes.bump(versions);
    }
    writes.release(inFlight);
    writes = null;
  }

  synchronized void onBulk(ByteBuffer bytes, boolean bigNumber) {
    replyStarted(false);
    if (recorder != null) {
      if (bigNumber) {
        recorder.bigNumber(bytes);
      } else {
        recorder.bulk(bytes);
      }
      afterRecord();
    }
  }

  synchronized void onScalar(Object value) {
    replyStarted(false);
    if (recorder != null) {
      recorder.scalar(value, 16);
      afterRecord();
    }
  }

  synchronized void onAggregate(int op, int count) {
    replyStarted(false);
    if (recorder != null) {
      recorder.aggregate(op, count);
      afterRecord();
    }
  }

  synchronized void onError() {
    replyStarted(true);
    if (recorder != null) {
      recorder.fail();
      afterRecord();
    }
  }

  private void afterRecord() {
    if (recorder.failed()) {
      cache.abandon(fill);
      fill = null;
      recorder = null;
    } else if (recorder.finished()) {
      ReadFill done = fill;
      java.util.List<Object> tape = recorder.tape();
      fill = null;
      recorder = null;
      cache.complete(done, tape);
    }
  }

  /** The command ended (answered, failed, cancelled): nothing more will arrive for it. */
  synchronized void done() {
    if (writes != null) {
      settleWrites(true);
    }
    if (fill != null) {
      cache.abandon(fill);
      fill = null;
      recorder = null;
    }
  }
}
