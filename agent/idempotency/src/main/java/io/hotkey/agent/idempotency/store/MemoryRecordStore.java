package io.hotkey.agent.idempotency.store;

import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.idempotency.HttpAnswer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Records of this JVM only, at most {@code maxBytes} of them (estimated): an issued record lives
 * for its ttl, an in-progress one until its lease ends, a completed one for the ttl (or the dedupe
 * window). Every operation is atomic through {@code ConcurrentHashMap.compute}, and a record is
 * checked for expiry whenever it is read, so a late upkeep never serves a dead record.
 *
 * <p>Records are dropped in the order they end. Records of one lifetime end in the order they were
 * written, so a FIFO per lifetime holds them in that order, and the upkeep only looks at a few
 * queue heads: it runs on the writing thread, by whichever writer gets to it, and skips a writer
 * that finds it running. A queue entry whose record has left the map since is dropped when it comes
 * to the head, or, behind a record that lives on, once such entries are half the queue. At the
 * bound the record nearest its end goes first, and never a claim in progress: a duplicate of a
 * request still running must not run. (A general cache's eviction by frequency would drop records
 * in another order, at times the newest, the one a retry is most likely to ask for.) Dropping a
 * record before its end is said once in the log: its retry runs again. Claims in progress count
 * towards the bound but are not held to it: there are as many as requests running, or abandoned
 * within their lease.
 */
public final class MemoryRecordStore implements RecordStore {
  private static final int RECORD_OVERHEAD = 160;

  /**
   * Queue heads the upkeep looks at per lifetime and write: more than the one entry a write leaves
   * behind (a claim's, once completed), so that the queues keep up with the writes.
   */
  private static final int UPKEEP_STEPS = 8;

  /** Stale entries below which a queue is not searched for them. */
  private static final int COMPACT_FLOOR = 64;

  private final ConcurrentHashMap<String, MemoryRecord> records = new ConcurrentHashMap<>();
  private final AtomicLong bytes = new AtomicLong();
  private final long maxBytes;
  private final LongSupplier nanoClock;
  private final AtomicLong tokens = new AtomicLong();
  private final AtomicBoolean upkeepRunning = new AtomicBoolean();
  private final AtomicBoolean droppedEarly = new AtomicBoolean();
  private volatile Lifetime[] lifetimes = new Lifetime[0];

  public MemoryRecordStore(long maxBytes) {
    this(maxBytes, System::nanoTime);
  }

  /**
   * @param nanoClock monotonic nanoseconds; tests pass a fake clock
   */
  public MemoryRecordStore(long maxBytes, LongSupplier nanoClock) {
    this.maxBytes = maxBytes;
    this.nanoClock = nanoClock;
  }

  @Override
  public ClaimResult claim(String recordKey, byte[] fingerprint, Duration lease) {
    return claim(recordKey, null, fingerprint, lease);
  }

  @Override
  public boolean issue(String recordKey, String scope, Duration ttl) {
    long now = nanoClock.getAsLong();
    MemoryRecord issued = MemoryRecord.issued(recordKey, scope, ttl.toNanos(), now);
    MemoryRecord[] written = new MemoryRecord[1];
    records.compute(
        recordKey,
        (key, current) -> {
          if (current != null && current.expiresAtNanos - now > 0) {
            return current;
          }
          return replace(written, current, issued);
        });
    return wrote(written[0]);
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
    MemoryRecord[] written = new MemoryRecord[1];
    records.compute(
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
            return replace(
                written,
                current,
                new MemoryRecord(
                    key,
                    fingerprint.clone(),
                    token,
                    lease.toNanos(),
                    now,
                    null,
                    scope,
                    live ? current.issuedTtlNanos : 0));
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
    wrote(written[0]);
    return result[0];
  }

  @Override
  public boolean complete(String recordKey, long token, HttpAnswer response, Duration ttl) {
    MemoryRecord[] written = new MemoryRecord[1];
    records.computeIfPresent(
        recordKey,
        (key, current) -> {
          long now = nanoClock.getAsLong();
          if (!current.isClaimedWith(token, now)) {
            return current;
          }
          return replace(
              written,
              current,
              new MemoryRecord(
                  key,
                  current.fingerprint,
                  token,
                  ttl.toNanos(),
                  now,
                  response,
                  current.scope,
                  current.issuedTtlNanos));
        });
    return wrote(written[0]);
  }

  @Override
  public boolean release(String recordKey, long token) {
    boolean[] released = new boolean[1];
    MemoryRecord[] written = new MemoryRecord[1];
    records.computeIfPresent(
        recordKey,
        (key, current) -> {
          long now = nanoClock.getAsLong();
          if (!current.isClaimedWith(token, now)) {
            return current;
          }
          released[0] = true;
          if (current.scope == null) {
            left(current);
            return null;
          }
          return replace(
              written,
              current,
              MemoryRecord.issued(key, current.scope, current.issuedTtlNanos, now));
        });
    wrote(written[0]);
    return released[0];
  }

  /** Records currently held, a dead one until the upkeep comes to it. */
  public long size() {
    return records.size();
  }

  @Override
  public String describe() {
    return "memory";
  }

  @Override
  public void close() {
    for (MemoryRecord record : records.values()) {
      if (records.remove(record.key, record)) {
        left(record);
      }
    }
  }

  /** Estimated bytes of the records held. */
  long bytes() {
    return bytes.get();
  }

  /** Entries in the lifetimes' queues, those of records gone included. */
  long queued() {
    long queued = 0;
    for (Lifetime lifetime : lifetimes) {
      queued += lifetime.queued.get();
    }
    return queued;
  }

  /**
   * In a {@code compute}: {@code next} takes {@code current}'s place, and its bytes; it is the
   * record {@code written}.
   */
  private MemoryRecord replace(MemoryRecord[] written, MemoryRecord current, MemoryRecord next) {
    bytes.addAndGet(next.weight);
    if (current != null) {
      left(current);
    }
    written[0] = next;
    return next;
  }

  /**
   * After a {@code compute}, outside the map's lock: a record written is queued with its lifetime,
   * then the upkeep's turn.
   *
   * @return whether a record was written
   */
  private boolean wrote(MemoryRecord written) {
    if (written != null) {
      Lifetime lifetime = lifetime(written.lifetimeNanos, written.isInProgress());
      lifetime.written.offer(written);
      lifetime.queued.incrementAndGet();
    }
    upkeep();
    return written != null;
  }

  /**
   * {@code record} has left the map (under its lock, or removed by {@code close}): its bytes go,
   * and its queue entry is stale.
   */
  private void left(MemoryRecord record) {
    bytes.addAndGet(-record.weight);
    record.replaced = true;
    lifetime(record.lifetimeNanos, record.isInProgress()).stale.incrementAndGet();
  }

  private Lifetime lifetime(long nanos, boolean inProgress) {
    for (Lifetime lifetime : lifetimes) {
      if (lifetime.nanos == nanos && lifetime.inProgress == inProgress) {
        return lifetime;
      }
    }
    synchronized (this) {
      Lifetime[] known = lifetimes;
      for (Lifetime lifetime : known) {
        if (lifetime.nanos == nanos && lifetime.inProgress == inProgress) {
          return lifetime;
        }
      }
      Lifetime added = new Lifetime(nanos, inProgress);
      Lifetime[] grown = Arrays.copyOf(known, known.length + 1);
      grown[known.length] = added;
      lifetimes = grown;
      return added;
    }
  }

  /** Drops ended records at the queues' heads, then, over the bound, those nearest their end. */
  private void upkeep() {
    if (!upkeepRunning.compareAndSet(false, true)) {
      return;
    }
    try {
      long now = nanoClock.getAsLong();
      for (Lifetime lifetime : lifetimes) {
        dropEnded(lifetime, now);
      }
      while (bytes.get() > maxBytes && dropNearestEnd(now)) {
        // one record at a time, the one nearest its end
      }
    } finally {
      upkeepRunning.set(false);
    }
  }

  private void dropEnded(Lifetime lifetime, long now) {
    int stale = lifetime.stale.get();
    if (stale > COMPACT_FLOOR && stale * 2 > lifetime.queued.get()) {
      lifetime.dropStale();
    }
    MemoryRecord firstMoved = null;
    for (int step = 0; step < UPKEEP_STEPS; step++) {
      MemoryRecord head = lifetime.written.peek();
      if (head == null || head == firstMoved) {
        return;
      }
      if (head.replaced) {
        lifetime.pollStale();
      } else if (head.expiresAtNanos - now <= 0) {
        lifetime.poll();
        remove(head);
      } else if (lifetime.inProgress) {
        // a claim still running: the claims behind it have mostly completed since, and their
        // entries go only once they come to the head
        lifetime.written.poll();
        lifetime.written.offer(head);
        if (firstMoved == null) {
          firstMoved = head;
        }
      } else {
        return;
      }
    }
  }

  /**
   * @return whether a record was dropped: false when only claims in progress are left
   */
  private boolean dropNearestEnd(long now) {
    Lifetime nearest = null;
    MemoryRecord victim = null;
    for (Lifetime lifetime : lifetimes) {
      if (lifetime.inProgress) {
        continue;
      }
      MemoryRecord head = lifetime.written.peek();
      while (head != null && head.replaced) {
        lifetime.pollStale();
        head = lifetime.written.peek();
      }
      if (head != null && (victim == null || head.expiresAtNanos - victim.expiresAtNanos < 0)) {
        nearest = lifetime;
        victim = head;
      }
    }
    if (victim == null) {
      return false;
    }
    nearest.poll();
    if (remove(victim)
        && victim.expiresAtNanos - now > 0
        && droppedEarly.compareAndSet(false, true)) {
      AgentLog.warn(
          "idempotency: the memory store is full ("
              + maxBytes / (1024 * 1024)
              + " MB): records are dropped before their ttl, those nearest their end first, and"
              + " a retry of a dropped key runs again; the redis store or a shorter"
              + " hotkey.idempotency.ttl keeps them (said once)");
    }
    return true;
  }

  /** By the upkeep, for a record whose queue entry it has taken: the record and its bytes go. */
  private boolean remove(MemoryRecord record) {
    if (records.remove(record.key, record)) {
      bytes.addAndGet(-record.weight);
      return true;
    }
    return false;
  }

  /** Records written with one lifetime, in the order they were written: the order they end. */
  private static final class Lifetime {
    final long nanos;

    /** Claims in progress, never dropped before their lease ends. */
    final boolean inProgress;

    final ConcurrentLinkedQueue<MemoryRecord> written = new ConcurrentLinkedQueue<>();

    /** Entries in {@link #written}. */
    final AtomicInteger queued = new AtomicInteger();

    /**
     * Entries of records that have left the map. Most go at the head; those behind a record that
     * lives on (an issued token never used, a claim still running) go in one pass once they are
     * half the queue, so that the queue stays within about twice the records it holds.
     */
    final AtomicInteger stale = new AtomicInteger();

    Lifetime(long nanos, boolean inProgress) {
      this.nanos = nanos;
      this.inProgress = inProgress;
    }

    /** By the upkeep only. */
    void poll() {
      written.poll();
      queued.decrementAndGet();
    }

    /** By the upkeep only: the head, whose record has left the map. */
    void pollStale() {
      poll();
      stale.decrementAndGet();
    }

    /** By the upkeep only. */
    void dropStale() {
      int dropped = 0;
      for (Iterator<MemoryRecord> entries = written.iterator(); entries.hasNext(); ) {
        if (entries.next().replaced) {
          entries.remove();
          dropped++;
        }
      }
      queued.addAndGet(-dropped);
      stale.addAndGet(-dropped);
    }
  }

  /** Issued (no fingerprint), in progress (no response) or completed. Immutable. */
  private static final class MemoryRecord {
    final String key;
    final byte[] fingerprint;
    final long token;
    final long lifetimeNanos;
    final long expiresAtNanos;
    final HttpAnswer response;

    /** The caller an issued record belongs to; null for a key's record. */
    final String scope;

    /** How long an issued record lives, again after a released claim. */
    final long issuedTtlNanos;

    /** Estimated bytes held. */
    final int weight;

    /**
     * Set when the record leaves the map for another or none: its queue entry is then stale. A
     * removal still asks the map ({@code remove(key, record)}).
     */
    volatile boolean replaced;

    MemoryRecord(
        String key,
        byte[] fingerprint,
        long token,
        long lifetimeNanos,
        long now,
        HttpAnswer response,
        String scope,
        long issuedTtlNanos) {
      this.key = key;
      this.fingerprint = fingerprint;
      this.token = token;
      this.lifetimeNanos = lifetimeNanos;
      this.expiresAtNanos = now + lifetimeNanos;
      this.response = response;
      this.scope = scope;
      this.issuedTtlNanos = issuedTtlNanos;
      this.weight = weight();
    }

    static MemoryRecord issued(String key, String scope, long ttlNanos, long now) {
      return new MemoryRecord(key, null, 0, ttlNanos, now, null, scope, ttlNanos);
    }

    /** Whether this is the claim {@code claimToken} made, its lease not yet ended. */
    boolean isClaimedWith(long claimToken, long now) {
      return isInProgress() && token == claimToken && expiresAtNanos - now > 0;
    }

    boolean isInProgress() {
      return fingerprint != null && response == null;
    }

    private int weight() {
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
