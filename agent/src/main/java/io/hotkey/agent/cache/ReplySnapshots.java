package io.hotkey.agent.cache;

import java.util.ArrayList;
import java.util.List;

/**
 * Freezes a client's raw protocol reply into a private copy and thaws a fresh copy for every hit, so
 * no caller ever shares a mutable object with the cache or with another caller.
 *
 * <p>Only the shapes every RESP2 reply decodes to are accepted: bulk strings ({@code byte[]}),
 * integers ({@code Long}), doubles, booleans, nil and nested lists of those. Anything else (error
 * objects, client-specific RESP3 types) makes the reply uncacheable: serving it would mean guessing.
 */
public final class ReplySnapshots {
  /** Returned by {@link #freeze} for replies that must not be cached. */
  public static final Object UNCACHEABLE = new Object();

  private static final int NODE_OVERHEAD = 16;

  private ReplySnapshots() {}

  /** Returns a private deep copy, or {@link #UNCACHEABLE} if the shape is unknown or the weight exceeds the cap. */
  public static Object freeze(Object raw, long maxBytes) {
    return copy(raw, new long[] {maxBytes});
  }

  /** Approximate retained bytes of a frozen reply. */
  public static long weigh(Object frozen) {
    if (frozen instanceof byte[]) {
      return NODE_OVERHEAD + ((byte[]) frozen).length;
    }
    if (frozen instanceof List) {
      long bytes = NODE_OVERHEAD + 8L * ((List<?>) frozen).size();
      for (Object element : (List<?>) frozen) {
        bytes += weigh(element);
      }
      return bytes;
    }
    return NODE_OVERHEAD;
  }

  /** A fresh copy for one caller. The frozen form was validated by {@link #freeze}. */
  public static Object thaw(Object frozen) {
    return copy(frozen, new long[] {Long.MAX_VALUE});
  }

  private static Object copy(Object value, long[] budget) {
    if (value == null || value instanceof Long || value instanceof Double || value instanceof Boolean) {
      return spend(budget, NODE_OVERHEAD) ? value : UNCACHEABLE;
    }
    if (value instanceof byte[]) {
      byte[] bytes = (byte[]) value;
      return spend(budget, NODE_OVERHEAD + bytes.length) ? bytes.clone() : UNCACHEABLE;
    }
    if (value instanceof List) {
      List<?> list = (List<?>) value;
      if (!spend(budget, NODE_OVERHEAD + 8L * list.size())) {
        return UNCACHEABLE;
      }
      List<Object> copy = new ArrayList<>(list.size());
      for (Object element : list) {
        Object copied = copy(element, budget);
        if (copied == UNCACHEABLE) {
          return UNCACHEABLE;
        }
        copy.add(copied);
      }
      return copy;
    }
    return UNCACHEABLE;
  }

  private static boolean spend(long[] budget, long bytes) {
    budget[0] -= bytes;
    return budget[0] >= 0;
  }
}
