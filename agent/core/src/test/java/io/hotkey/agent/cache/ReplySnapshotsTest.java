package io.hotkey.agent.cache;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.AbstractMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplySnapshotsTest {
  /**
   * Shaped like a client's RESP3 map pair (e.g. Jedis' KeyValue): immutable, public (Object,
   * Object) constructor.
   */
  public static final class Pair<K, V> extends AbstractMap.SimpleImmutableEntry<K, V> {
    public Pair(K key, V value) {
      super(key, value);
    }
  }

  @Test
  void resp3PairsAreRebuiltAsTheirOwnTypeWithPrivateCopies() {
    byte[] field = "f".getBytes(UTF_8);
    List<Object> raw = List.of(new Pair<>(field, "1".getBytes(UTF_8)));
    Object frozen = ReplySnapshots.freeze(raw, 1024);
    List<?> thawed = (List<?>) ReplySnapshots.thaw(frozen);

    Pair<?, ?> pair = (Pair<?, ?>) thawed.get(0);
    assertEquals(Pair.class, pair.getClass());
    assertArrayEquals(field, (byte[]) pair.getKey());
    assertNotSame(field, pair.getKey());
    assertNotSame(pair, ((List<?>) ReplySnapshots.thaw(frozen)).get(0));
  }

  @Test
  void pairsWithoutAPublicPairConstructorAreUncacheable() {
    Map.Entry<Object, Object> entry = Map.entry("k".getBytes(UTF_8), "v".getBytes(UTF_8));
    assertSame(ReplySnapshots.UNCACHEABLE, ReplySnapshots.freeze(List.of(entry), 1024));
  }

  @Test
  void theBudgetCountsNestedBytes() {
    List<Object> raw = List.of(new byte[600], List.of(new byte[600]));
    assertSame(ReplySnapshots.UNCACHEABLE, ReplySnapshots.freeze(raw, 1000));
    assertEquals(2, ((List<?>) ReplySnapshots.freeze(raw, 4096)).size());
  }
}
