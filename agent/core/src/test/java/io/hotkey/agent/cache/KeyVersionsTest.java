package io.hotkey.agent.cache;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class KeyVersionsTest {
  private final KeyVersions versions = new KeyVersions();

  @Test
  void aBumpAfterAStampMakesItStaleAndOnlyForItsStripe() {
    int[] hashes = {7, 1 << 20 | 9};
    long[] stamp = versions.stamp(hashes);
    assertTrue(versions.isCurrent(stamp, hashes));

    versions.bump(8);
    assertTrue(versions.isCurrent(stamp, hashes), "another stripe");
    versions.bump(9);
    assertFalse(versions.isCurrent(stamp, hashes), "the second key's stripe");
  }

  @Test
  void keysSharingAStripeInvalidateEachOther() {
    int[] key = {42};
    long[] stamp = versions.stamp(key);
    versions.bump(42 + (1 << 16));
    assertFalse(versions.isCurrent(stamp, key));
  }

  @Test
  void bumpsBeforeTheFirstStampDoNotAffectIt() {
    int[] key = {5};
    versions.bump(5);
    versions.bump(5);
    long[] stamp = versions.stamp(key);
    assertTrue(versions.isCurrent(stamp, key));
    assertTrue(versions.advancedBy(stamp, 5, 0));

    versions.bump(5);
    assertTrue(versions.advancedBy(stamp, 5, 1), "once stamped, every bump counts");
    assertFalse(versions.isCurrent(stamp, key));
  }

  @Test
  void aDistrustStopsServingButIsNotAChange() {
    int[] key = {7};
    long[] stamp = versions.stamp(key);
    versions.distrustAll();
    assertFalse(versions.isCurrent(stamp, key), "no entry is served after a distrust");
    assertTrue(versions.isUnchanged(stamp, key), "nothing is known to have changed");
    versions.bump(7);
    assertFalse(versions.isUnchanged(stamp, key), "a write or an invalidation is a change");
    long[] other = versions.stamp(new int[] {8});
    versions.bumpAll();
    assertFalse(versions.isUnchanged(other, new int[] {8}), "FLUSHALL changes every key");
  }

  @Test
  void bumpAllMakesEveryStampStale() {
    int[] key = {3};
    long[] stamp = versions.stamp(key);
    versions.bumpAll();
    assertFalse(versions.isCurrent(stamp, key));
    assertFalse(versions.advancedBy(stamp, 3, 0));
  }

  /**
   * The race the marks must not lose: a fill stamps a key never stamped before and then reads it,
   * while a write applies a new value and then bumps. Whenever the fill read the old value, its
   * stamp must be stale once the write has bumped, whichever of the two came first to the key's
   * mark.
   */
  @Test
  void aFillThatReadTheOldValueIsNeverCurrentAfterTheWriteBumped() throws Exception {
    int rounds = 20_000;
    AtomicIntegerArray applied = new AtomicIntegerArray(rounds);
    long[][] stamps = new long[rounds][];
    int[] seen = new int[rounds];
    CyclicBarrier start = new CyclicBarrier(2);
    Thread fill =
        new Thread(
            () -> {
              for (int i = 0; i < rounds; i++) {
                await(start);
                stamps[i] = versions.stamp(new int[] {i});
                seen[i] = applied.get(i);
              }
            });
    Thread write =
        new Thread(
            () -> {
              for (int i = 0; i < rounds; i++) {
                await(start);
                applied.set(i, 1);
                versions.bump(i);
              }
            });
    fill.start();
    write.start();
    fill.join();
    write.join();

    int oldReads = 0;
    for (int i = 0; i < rounds; i++) {
      if (seen[i] == 0) {
        oldReads++;
        assertFalse(
            versions.isCurrent(stamps[i], new int[] {i}),
            "round " + i + " would serve the old value");
      }
    }
    assertTrue(oldReads > 0, "the fill never read before the write; the race was not exercised");
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
