package io.hotkey.it.app;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Calls whose binary signature differs between Jedis 3.x and 4+ (e.g. {@code Long hset} vs {@code
 * long hset}, {@code Set zrange} vs {@code List zrange}) go through reflection, so one compiled app
 * runs on every version. Reflection still calls the real client method, so the agent sees exactly
 * what an application would send. Also holds the canonical text forms the tests compare against.
 */
public final class Ops {
  private static final Map<String, Method> METHODS = new ConcurrentHashMap<>();

  private Ops() {}

  public static Object call(Object target, String name, Class<?>[] types, Object... args) {
    String k = target.getClass().getName() + "#" + name + java.util.Arrays.toString(types);
    Method m =
        METHODS.computeIfAbsent(
            k,
            x -> {
              try {
                return target.getClass().getMethod(name, types);
              } catch (NoSuchMethodException e) {
                throw new IllegalStateException("no " + k, e);
              }
            });
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException runtimeException) {
        throw runtimeException;
      }
      if (c instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(c);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final Class<?>[] S = {String.class};
  private static final Class<?>[] SSS = {String.class, String.class, String.class};
  private static final Class<?>[] SLL = {String.class, long.class, long.class};
  private static final Class<?>[] SSA = {String.class, String[].class};
  private static final Class<?>[] SDS = {String.class, double.class, String.class};

  /** zrange(key, 0, -1) as a List (3.x returns an ordered Set). */
  public static Collection<?> zrange(Object client, String key) {
    return (Collection<?>) call(client, "zrange", SLL, key, 0L, -1L);
  }

  public static Object hset(Object client, String key, String field, String value) {
    return call(client, "hset", SSS, key, field, value);
  }

  public static Object rpush(Object client, String key, String... values) {
    return call(client, "rpush", SSA, key, values);
  }

  public static Object sadd(Object client, String key, String... values) {
    return call(client, "sadd", SSA, key, values);
  }

  public static Object zadd(Object client, String key, double score, String member) {
    return call(client, "zadd", SDS, key, score, member);
  }

  public static Object del(Object client, String key) {
    return call(client, "del", S, key);
  }

  public static Object incr(Object client, String key) {
    return call(client, "incr", S, key);
  }

  public static Object hdel(Object client, String key, String field) {
    return call(client, "hdel", SSA, key, new String[] {field});
  }

  // ---- canonical forms (the tests format what Redis holds the same way) ----

  public static String canonMap(Map<?, ?> m) {
    return m == null ? "null" : new TreeMap<>(m).toString();
  }

  public static String canonSet(Collection<?> c) {
    return c == null ? "null" : new TreeSet<>(c).toString();
  }

  public static String canonList(Collection<?> c) {
    return c == null ? "null" : new ArrayList<>(c).toString();
  }
}
