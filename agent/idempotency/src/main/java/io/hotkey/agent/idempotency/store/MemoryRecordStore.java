package io.hotkey.agent.idempotency.store;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.hotkey.agent.idempotency.HttpAnswer;
import java.time.Duration;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Records of this JVM only: Caffeine bounded in (estimated) bytes; an issued record expires after
 * its ttl, an in-progress one when its lease ends, a completed one after the ttl. Every operation
 * is atomic through {@code asMap().compute}. Caffeine's upkeep (eviction, expiry) runs on the
 * request's thread, in the small batches Caffeine amortises it in: handing it to a thread of its
 * own woke that thread on every write, which cost a request more than the upkeep itself. A record
 * is checked for expiry whenever it is read, so late upkeep never serves a dead record. Under
 * memory pressure Caffeine may evict a record early (least valuable first); an evicted record
 * simply lets the next request with that key run again, or makes its token unknown.
 */
public final class MemoryRecordStore implements RecordStore {
  private static final int RECORD_OVERHEAD = 160;

  private final Cache<String, MemoryRecord> records;
  private final ConcurrentMap<String, MemoryRecord> map;
  private final LongSupplier nanoClock;
  private final AtomicLong tokens = new AtomicLong();

  public MemoryRecordStore(long maxBytes) {
    this(maxBytes, System::nanoTime);
  }

  /**
   * @param nanoClock monotonic nanoseconds; tests pass a fake clock
   */
  public MemoryRecordStore(long maxBytes, LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    this.records =
        Caffeine.newBuilder()
            .maximumWeight(maxBytes)
            .weigher((String key, MemoryRecord record) -> record.weight(key))
            .expireAfter(
                new Expiry<String, MemoryRecord>() {
                  @Override
                  public long expireAfterCreate(String key, MemoryRecord record, long now) {
                    return Math.max(0, record.expiresAtNanos - now);
                  }

                  @Override
                  public long expireAfterUpdate(
                      String key, MemoryRecord record, long now, long currentDuration) {
                    return Math.max(0, record.expiresAtNanos - now);
                  }

                  @Override
                  public long expireAfterRead(
                      String key, MemoryRecord record, long now, long currentDuration) {
                    return currentDuration;
                  }
                })
            .ticker(nanoClock::getAsLong)
            .executor(Runnable::run)
            .build();
    this.map = records.asMap();
  }

  @Override
  public ClaimResult claim(String recordKey, byte[] fingerprint, Duration lease) {
    return claim(recordKey, null, fingerprint, lease);
  }

  @Override
  public boolean issue(String recordKey, String scope, Duration ttl) {
    long now = nanoClock.getAsLong();
    MemoryRecord issued = MemoryRecord.issued(scope, ttl.toNanos(), now);
    boolean[] created = new boolean[1];
    map.compute(
        recordKey,
        (key, current) -> {
          if (current != null && current.expiresAtNanos - now > 0) {
            return current;
          }
          created[0] = true;
          return issued;
        });
    return created[0];
  }

  @Override
  public ClaimResult claimIssued(
      String recordKey, String scope, byte[] fingerprint, Duration lease) {
    return claim(recordKey, scope, fingerprint, lease);
  }

  /**
   * @param scope null: a key, claimed when it has no record; else an issued record's scope
   */
  private ClaimResult claim(String recordKey, String scope, byte[] fingerprint, Duration lease) {
    ClaimResult[] result = new ClaimResult[1];
    map.compute(
        recordKey,
        (key, current) -> {
          long now = nanoClock.getAsLong();
          boolean live = current != null && current.expiresAtNanos - now > 0;
          if (scope != null && (!live || !scope.equals(current.scope))) {
            result[0] = live ? ClaimResult.wrongCaller() : ClaimResult.notIssued();
            return current;
          }
          if (!live || current.fingerprint == null) {
            long token = tokens.incrementAndGet();
            result[0] = ClaimResult.claimed(token);
            return new MemoryRecord(
                fingerprint.clone(),
                token,
                now + lease.toNanos(),
                null,
                scope,
                live ? current.issuedTtlNanos : 0);
          }
          if (current.response == null) {
            result[0] =
                ClaimResult.inProgress(
                    current.fingerprint.clone(),
                    Math.max(1, (current.expiresAtNanos - now) / 1_000_000));
          } else {
            result[0] = ClaimResult.completed(current.fingerprint.clone(), current.response);
          }
          return current;
        });
    return result[0];
  }

  @Override
  public boolean complete(String recordKey, long token, HttpAnswer response, Duration ttl) {
    boolean[] done = new boolean[1];
    map.computeIfPresent(
        recordKey,
        (key, current) -> {
          long now = nanoClock.getAsLong();
          if (!current.isClaimedWith(token) || current.expiresAtNanos - now <= 0) {
            return current;
          }
          done[0] = true;
          return new MemoryRecord(
              current.fingerprint,
              token,
              now + ttl.toNanos(),
              response,
              current.scope,
              current.issuedTtlNanos);
        });
    return done[0];
  }

  @Override
  public boolean release(String recordKey, long token) {
    boolean[] done = new boolean[1];
    map.computeIfPresent(
        recordKey,
        (key, current) -> {
          if (!current.isClaimedWith(token)) {
            return current;
          }
          done[0] = true;
          return current.scope == null
              ? null
              : MemoryRecord.issued(current.scope, current.issuedTtlNanos, nanoClock.getAsLong());
        });
    return done[0];
  }

  /** Records currently held (after pending expirations are applied). */
  public long size() {
    records.cleanUp();
    return records.estimatedSize();
  }

  @Override
  public String describe() {
    return "memory";
  }

  @Override
  public void close() {
    records.invalidateAll();
  }

  /** Issued (no fingerprint), in progress (no response) or completed. Immutable. */
  private static final class MemoryRecord {
    final byte[] fingerprint;
    final long token;
    final long expiresAtNanos;
    final HttpAnswer response;

    /** The caller an issued record belongs to; null for a key's record. */
    final String scope;

    /** How long an issued record lives, again after a released claim. */
    final long issuedTtlNanos;

    MemoryRecord(
        byte[] fingerprint,
        long token,
        long expiresAtNanos,
        HttpAnswer response,
        String scope,
        long issuedTtlNanos) {
      this.fingerprint = fingerprint;
      this.token = token;
      this.expiresAtNanos = expiresAtNanos;
      this.response = response;
      this.scope = scope;
      this.issuedTtlNanos = issuedTtlNanos;
    }

    static MemoryRecord issued(String scope, long ttlNanos, long now) {
      return new MemoryRecord(null, 0, now + ttlNanos, null, scope, ttlNanos);
    }

    boolean isClaimedWith(long claimToken) {
      return fingerprint != null && response == null && token == claimToken;
    }

    int weight(String key) {
      long weight = RECORD_OVERHEAD + 2L * key.length();
      weight += fingerprint == null ? 0 : fingerprint.length;
      weight += scope == null ? 0 : 2L * scope.length();
      if (response != null) {
        weight += response.bodyLength();
        for (var header : response.headers()) {
          weight += 48 + 2L * (header.getKey().length() + header.getValue().length());
        }
      }
      return (int) Math.min(Integer.MAX_VALUE, weight);
    }

    @Override
    public String toString() {
      return "MemoryRecord{token="
          + token
          + ", state="
          + (fingerprint == null ? "issued" : response == null ? "in progress" : "completed")
          + "}";
    }
  }
}
