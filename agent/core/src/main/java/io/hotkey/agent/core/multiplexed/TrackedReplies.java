package io.hotkey.agent.core.multiplexed;

import io.hotkey.agent.core.TrackedReplyField;
import java.util.IdentityHashMap;
import java.util.function.Supplier;

/**
 * The replies the agent is waiting for on multiplexed connections (a Lettuce {@code
 * CommandOutput}): in the reply's own {@link TrackedReplyField} when its class has one, else by the
 * reply's identity.
 *
 * <p>Why not a weak-keyed cache: every reply event the decoder emits and every command's end asks
 * "is this reply tracked?", and nearly always the answer is no (only writes, fills and, while
 * serving stale on error, hot reads sent to Redis are tracked), while a weak-keyed Caffeine cache
 * allocates a lookup key for each such question and runs its maintenance buffers on each insert.
 * Here an untracked reply costs one identity hash and one volatile read, and an insert one
 * uncontended lock.
 *
 * <p>Entries are held strongly and removed when their command ends ({@code complete}, {@code
 * completeExceptionally} or {@code cancel}, which Lettuce calls for every command, including those
 * still queued when a connection closes). Identity, not {@code equals}, because an application's
 * own {@code CommandOutput} may define equality.
 */
final class TrackedReplies {
  /**
   * 256 segments: an async client with a hundred commands in flight, a tenth of them writes, leaves
   * most segments empty, so most questions are answered without the lock.
   */
  private static final int SEGMENT_BITS = 8;

  private final Segment[] segments = new Segment[1 << SEGMENT_BITS];

  TrackedReplies() {
    for (int i = 0; i < segments.length; i++) {
      segments[i] = new Segment();
    }
  }

  /** The tracked reply, or null; lock-free when nothing in its segment is tracked. */
  TrackedReply get(Object reply) {
    if (reply instanceof TrackedReplyField) {
      return (TrackedReply) ((TrackedReplyField) reply).hotkey$trackedReply();
    }
    Segment segment = segmentOf(reply);
    if (segment.size == 0) {
      return null;
    }
    synchronized (segment) {
      return segment.map.get(reply);
    }
  }

  /** Called only by the thread that dispatches the command owning {@code reply}. */
  TrackedReply getOrCreate(Object reply, Supplier<TrackedReply> create) {
    if (reply instanceof TrackedReplyField) {
      TrackedReplyField field = (TrackedReplyField) reply;
      TrackedReply tracked = (TrackedReply) field.hotkey$trackedReply();
      if (tracked == null) {
        tracked = create.get();
        field.hotkey$trackedReply(tracked);
      }
      return tracked;
    }
    Segment segment = segmentOf(reply);
    synchronized (segment) {
      TrackedReply tracked = segment.map.get(reply);
      if (tracked == null) {
        tracked = create.get();
        segment.map.put(reply, tracked);
        segment.size = segment.map.size();
      }
      return tracked;
    }
  }

  /**
   * Two threads ending the same command at once (a reply and a cancellation) may both get the
   * tracked reply from a field; {@link TrackedReply#done} is idempotent for that.
   */
  TrackedReply remove(Object reply) {
    if (reply instanceof TrackedReplyField) {
      TrackedReplyField field = (TrackedReplyField) reply;
      TrackedReply tracked = (TrackedReply) field.hotkey$trackedReply();
      if (tracked != null) {
        field.hotkey$trackedReply(null);
      }
      return tracked;
    }
    Segment segment = segmentOf(reply);
    if (segment.size == 0) {
      return null;
    }
    synchronized (segment) {
      TrackedReply removed = segment.map.remove(reply);
      segment.size = segment.map.size();
      return removed;
    }
  }

  private Segment segmentOf(Object reply) {
    return segments[(System.identityHashCode(reply) * 0x9E3779B9) >>> (32 - SEGMENT_BITS)];
  }

  private static final class Segment {
    /** Written under the segment's lock; read without it to skip empty segments. */
    volatile int size;

    final IdentityHashMap<Object, TrackedReply> map = new IdentityHashMap<>(4);
  }
}
