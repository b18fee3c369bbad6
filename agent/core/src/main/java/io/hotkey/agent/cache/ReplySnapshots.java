package io.hotkey.agent.cache;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Freezes a client's raw protocol reply into a private copy and thaws a fresh copy for every hit,
 * so no caller ever shares a mutable object with the cache or with another caller.
 *
 * <p>Only the shapes protocol replies decode to are accepted: bulk strings ({@code byte[]}),
 * integers ({@code Long}), doubles, booleans, nil, nested lists, and the immutable {@code
 * Map.Entry} pairs RESP3 maps decode to (rebuilt through their class's public {@code (Object,
 * Object)} constructor, so the client gets its own pair type back). Anything else (error objects,
 * unknown types) makes the reply uncacheable: serving it would mean guessing.
 */
public final class ReplySnapshots {
  /** Returned by {@link #freeze} for replies that must not be cached. */
  public static final Object UNCACHEABLE = new Object();

  private static final int NODE_OVERHEAD = 16;
  private static final MethodType PAIR_CONSTRUCTOR =
      MethodType.methodType(void.class, Object.class, Object.class);
  private static final ClassValue<MethodHandle> PAIR_CONSTRUCTORS =
      new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
          try {
            return MethodHandles.publicLookup().findConstructor(type, PAIR_CONSTRUCTOR);
          } catch (ReflectiveOperationException | SecurityException e) {
            return null;
          }
        }
      };

  private ReplySnapshots() {}

  /**
   * Returns a private deep copy, or {@link #UNCACHEABLE} if the shape is unknown or the weight
   * exceeds the cap.
   */
  public static Object freeze(Object raw, long maxBytes) {
    return copy(raw, new long[] {maxBytes});
  }

  /** Approximate retained bytes of a frozen reply. */
  public static long weigh(Object frozen) {
    if (frozen instanceof byte[]) {
      return (long) NODE_OVERHEAD + ((byte[]) frozen).length;
    }
    if (frozen instanceof List) {
      long bytes = NODE_OVERHEAD + 8L * ((List<?>) frozen).size();
      for (Object element : (List<?>) frozen) {
        bytes += weigh(element);
      }
      return bytes;
    }
    if (frozen instanceof Map.Entry) {
      Map.Entry<?, ?> pair = (Map.Entry<?, ?>) frozen;
      return NODE_OVERHEAD + weigh(pair.getKey()) + weigh(pair.getValue());
    }
    return NODE_OVERHEAD;
  }

  /** A fresh copy for one caller. The frozen form was validated by {@link #freeze}. */
  public static Object thaw(Object frozen) {
    return copy(frozen, new long[] {Long.MAX_VALUE});
  }

  private static Object copy(Object value, long[] budget) {
    if (value == null
        || value instanceof Long
        || value instanceof Double
        || value instanceof Boolean) {
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
    if (value instanceof Map.Entry) {
      return copyPair((Map.Entry<?, ?>) value, budget);
    }
    return UNCACHEABLE;
  }

  private static Object copyPair(Map.Entry<?, ?> pair, long[] budget) {
    MethodHandle constructor = PAIR_CONSTRUCTORS.get(pair.getClass());
    if (constructor == null || !spend(budget, NODE_OVERHEAD)) {
      return UNCACHEABLE;
    }
    Object key = copy(pair.getKey(), budget);
    Object value = copy(pair.getValue(), budget);
    if (key == UNCACHEABLE || value == UNCACHEABLE) {
      return UNCACHEABLE;
    }
    try {
      return constructor.invoke(key, value);
    } catch (Throwable e) {
      return UNCACHEABLE;
    }
  }

  private static boolean spend(long[] budget, long bytes) {
    budget[0] -= bytes;
    return budget[0] >= 0;
  }
}
