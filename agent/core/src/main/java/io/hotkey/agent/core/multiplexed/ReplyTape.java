package io.hotkey.agent.core.multiplexed;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A reply recorded as the sequence of decoder callbacks a client made into its reply object (for
 * Lettuce: the {@code CommandOutput} callbacks of its {@code RedisStateMachine}), so that a later
 * command's own reply object can be fed the same callbacks and decode them with its own codec.
 *
 * <p>The tape is a flat list in the shapes {@code ReplySnapshots} freezes and thaws: a bulk string
 * is a {@code byte[]}, a nil is {@code null}, integers, doubles and booleans are boxed, and
 * everything else (aggregate headers, big numbers) is a two-element list {@code [opcode,
 * argument]}. The {@code complete(depth)} calls the decoder makes after every element are not
 * stored: they follow from the structure and are regenerated on replay exactly as the decoder makes
 * them.
 */
public final class ReplyTape {
  public static final int OP_BULK = 0;
  public static final int OP_LONG = 1;
  public static final int OP_DOUBLE = 2;
  public static final int OP_BOOLEAN = 3;
  public static final int OP_BIG_NUMBER = 4;
  public static final int OP_ARRAY = 5;
  public static final int OP_SET = 6;
  public static final int OP_MAP = 7;
  public static final int OP_COMPLETE = 8;

  private ReplyTape() {}

  /** Records one reply; {@link #finished()} once its top-level element is complete. */
  static final class Recorder {
    private final List<Object> tape = new ArrayList<>();
    private final long maxBytes;
    private long bytes;
    private int[] open = new int[8];
    private int depth;
    private boolean finished;
    private boolean failed;

    Recorder(long maxBytes) {
      this.maxBytes = maxBytes;
    }

    void bulk(ByteBuffer value) {
      if (value == null) {
        scalar(null, 16);
        return;
      }
      ByteBuffer view = value.duplicate();
      byte[] copy = new byte[view.remaining()];
      view.get(copy);
      scalar(copy, 16 + copy.length);
    }

    void bigNumber(ByteBuffer value) {
      ByteBuffer view = value.duplicate();
      byte[] copy = new byte[view.remaining()];
      view.get(copy);
      scalar(pair(OP_BIG_NUMBER, copy), 48 + copy.length);
    }

    void scalar(Object value, long weight) {
      if (!accept(weight)) {
        return;
      }
      tape.add(value);
      elementDone();
    }

    void aggregate(int op, int count) {
      if (!accept(48)) {
        return;
      }
      tape.add(pair(op, (long) count));
      int children = op == OP_MAP ? count * 2 : count;
      if (children <= 0) {
        elementDone();
        return;
      }
      if (depth == open.length) {
        open = Arrays.copyOf(open, depth * 2);
      }
      open[depth++] = children;
    }

    void fail() {
      failed = true;
    }

    boolean finished() {
      return finished;
    }

    boolean failed() {
      return failed;
    }

    List<Object> tape() {
      return tape;
    }

    private boolean accept(long weight) {
      if (finished || failed) {
        failed = true;
        return false;
      }
      bytes += weight;
      if (bytes > maxBytes) {
        failed = true;
        return false;
      }
      return true;
    }

    /** Mirrors the decoder: an element is done; so is every aggregate whose last child it was. */
    private void elementDone() {
      while (depth > 0) {
        if (--open[depth - 1] > 0) {
          return;
        }
        depth--;
      }
      finished = true;
    }
  }

  private static List<Object> pair(int op, Object argument) {
    List<Object> pair = new ArrayList<>(2);
    pair.add((long) op);
    pair.add(argument);
    return pair;
  }

  /**
   * Walks a tape for an adapter that replays it: {@link #next()} then {@link #op()} and the
   * matching accessor, {@code complete(depth)} calls included. Each byte argument is a copy or a
   * read-only view ({@link #bytes}), so the stored tape is never changed by a codec. A dispatch
   * that answers a command locally returns one as its {@link DispatchOutcome}.
   */
  public static final class Cursor extends DispatchOutcome {
    /**
     * Netty copies a read-only buffer of up to 1 KiB into its scratch array before decoding it, so
     * a copy of ours up to that length costs no more bytes copied.
     */
    static final int COPIED_BYTES = 1024;

    private static final int[] NO_AGGREGATES = new int[0];

    private final List<?> tape;
    private int index;
    // allocated at the tape's first aggregate: a scalar reply (a GET's) walks without it
    private int[] open = NO_AGGREGATES;
    private int depth;
    // the completions owed after an element: complete(d) for d from the first down to the last
    private int nextCompleteDepth = -1;
    private int lastCompleteDepth;
    private int op;
    private Object value;
    // an aggregate's element count or a completion's depth, unboxed
    private int count;

    Cursor(List<?> tape) {
      super(false);
      this.tape = tape;
    }

    public boolean next() {
      if (nextCompleteDepth >= lastCompleteDepth) {
        op = OP_COMPLETE;
        count = nextCompleteDepth--;
        return true;
      }
      if (index >= tape.size()) {
        return false;
      }
      Object element = tape.get(index++);
      value = element;
      // a bulk string is most of what a served read replays: kept small enough to be inlined
      if (element == null || element instanceof byte[]) {
        op = OP_BULK;
        elementDone();
        return true;
      }
      nonBulk(element);
      return true;
    }

    private void nonBulk(Object element) {
      if (element instanceof List) {
        List<?> pair = (List<?>) element;
        op = ((Long) pair.get(0)).intValue();
        value = pair.get(1);
        if (op == OP_BIG_NUMBER) {
          elementDone();
        } else {
          count = ((Long) value).intValue();
          int children = op == OP_MAP ? count * 2 : count;
          if (children <= 0) {
            elementDone();
          } else {
            if (depth == open.length) {
              open = Arrays.copyOf(open, Math.max(8, depth * 2));
            }
            open[depth++] = children;
          }
        }
        return;
      }
      if (element instanceof Long) {
        op = OP_LONG;
      } else if (element instanceof Double) {
        op = OP_DOUBLE;
      } else if (element instanceof Boolean) {
        op = OP_BOOLEAN;
      } else {
        throw new IllegalStateException("not a reply tape element: " + element.getClass());
      }
      elementDone();
    }

    public int op() {
      return op;
    }

    /**
     * The bulk string or big number of this step, null for a nil. Up to {@link #COPIED_BYTES}, a
     * copy of its own (a codec may change it): a heap buffer is what codecs decode fastest, where
     * Netty's copy a read-only one into a scratch array first. A longer one is a read-only view of
     * the stored bytes, so that a codec which copies anyway ({@code ByteArrayCodec}) copies once.
     */
    public ByteBuffer bytes() {
      if (value == null) {
        return null;
      }
      byte[] stored = (byte[]) value;
      return stored.length <= COPIED_BYTES
          ? ByteBuffer.wrap(stored.clone())
          : ByteBuffer.wrap(stored).asReadOnlyBuffer();
    }

    public long longValue() {
      return (Long) value;
    }

    public double doubleValue() {
      return (Double) value;
    }

    public boolean booleanValue() {
      return (Boolean) value;
    }

    /** Element count of an aggregate header (pairs for a map), or the depth of a completion. */
    public int count() {
      return count;
    }

    /**
     * The decoder calls {@code complete(stack size)} after each element, and again for each
     * aggregate it closes: one call for each depth from the element's down to the outermost
     * aggregate still open.
     */
    private void elementDone() {
      nextCompleteDepth = depth;
      while (depth > 0 && --open[depth - 1] == 0) {
        depth--;
      }
      lastCompleteDepth = depth;
    }
  }
}
