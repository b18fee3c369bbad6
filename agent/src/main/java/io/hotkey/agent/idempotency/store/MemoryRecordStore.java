package io.hotkey.agent.idempotency.store;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.hotkey.agent.idempotency.HttpAnswer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Records of this JVM only: Caffeine bounded in (estimated) bytes; an in-progress record expires
 * when its lease ends, a completed one after the ttl. Claims, completions and releases are atomic
 * through {@code asMap().compute}. Under memory pressure Caffeine may evict a record early (least
 * valuable first); an evicted record simply lets the next request with that key run again.
 */
public final class MemoryRecordStore implements RecordStore {
  private static final int RECORD_OVERHEAD = 160;

  private final Cache<String, MemoryRecord> records;
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
  }

  @Override
  public ClaimResult claim(String recordKey, byte[] fingerprint, Duration lease) {
    ClaimResult[] result = new ClaimResult[1];
    records
        .asMap()
        .compute(
            recordKey,
            (key, current) -> {
              long now = nanoClock.getAsLong();
              if (current == null || current.expiresAtNanos - now <= 0) {
                long token = tokens.incrementAndGet();
                result[0] = ClaimResult.claimed(token);
                return new MemoryRecord(fingerprint.clone(), token, now + lease.toNanos(), null);
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
    records
        .asMap()
        .computeIfPresent(
            recordKey,
            (key, current) -> {
              long now = nanoClock.getAsLong();
              if (current.response != null
                  || current.token != token
                  || current.expiresAtNanos - now <= 0) {
                return current;
              }
              done[0] = true;
              return new MemoryRecord(current.fingerprint, token, now + ttl.toNanos(), response);
            });
    return done[0];
  }

  @Override
  public boolean release(String recordKey, long token) {
    boolean[] done = new boolean[1];
    records
        .asMap()
        .computeIfPresent(
            recordKey,
            (key, current) -> {
              if (current.response != null || current.token != token) {
                return current;
              }
              done[0] = true;
              return null;
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

  private static final class MemoryRecord {
    final byte[] fingerprint;
    final long token;
    final long expiresAtNanos;

    /** null while in progress. */
    final HttpAnswer response;

    MemoryRecord(byte[] fingerprint, long token, long expiresAtNanos, HttpAnswer response) {
      this.fingerprint = fingerprint;
      this.token = token;
      this.expiresAtNanos = expiresAtNanos;
      this.response = response;
    }

    int weight(String key) {
      long weight = RECORD_OVERHEAD + 2L * key.length() + fingerprint.length;
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
          + ", fp="
          + Arrays.hashCode(fingerprint)
          + ", done="
          + (response != null)
          + "}";
    }
  }
}
