package io.hotkey.agent.core;

import io.hotkey.agent.cache.HotKeyReads;
import io.hotkey.agent.detect.HotKeyDetector;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.redis.CommandSpec;
import io.hotkey.agent.redis.RedisCommandTable;

/**
 * The step every command takes whichever client sent it: looked up in the command table, its keys
 * located and hashed ({@link #classify}), counted as a read or a write and its keys recorded with
 * the detector ({@link #record}), and, for a cacheable read, asked whether every key it reads may
 * be served locally ({@link #servableRead}), its hot keys noted so that the gateway counts the
 * read's outcome in their {@link HotKeyReads}. Shared by both gateways, which differ only in what
 * they do with the result.
 */
public final class CommandClassifier {
  private final HotKeyDetector detector;
  private final HotKeyRegistry hotKeys;
  private final AgentErrors errors;

  /**
   * {@link AgentErrors#injectsFailures()}, copied here: every command reads this object's fields
   * anyway, and the switch only tests turn on must not cost one more cache line per command.
   */
  private final boolean injectFailures;

  private final CommandCounts counts = new CommandCounts();

  public CommandClassifier(HotKeyDetector detector, HotKeyRegistry hotKeys, AgentErrors errors) {
    this.detector = detector;
    this.hotKeys = hotKeys;
    this.errors = errors;
    this.injectFailures = errors.injectsFailures();
  }

  /** Throws every {@code hotkey.debug.fail-every}th time, so tests exercise the safety net. */
  public void maybeInjectFailure() {
    if (injectFailures) {
      errors.maybeInjectFailure();
    }
  }

  /** Classifies {@code argv}, the command as sent, into {@code into}; returns {@code into}. */
  public ClassifiedCommand classify(byte[][] argv, ClassifiedCommand into) {
    CommandSpec spec = RedisCommandTable.lookup(argv[0]);
    int keyCount = spec.keyCount(argv);
    into.reserve(keyCount);
    int[] hashes = into.hashes;
    long keyPositions = 0;
    for (int n = 0; n < keyCount; n++) {
      int index = spec.keyIndex(argv, n);
      hashes[n] = KeyHashes.hash(argv[index]);
      keyPositions |= index < 64 ? 1L << index : 0;
    }
    into.spec = spec;
    into.kind = spec.kind(argv);
    into.keyCount = keyCount;
    into.keyPositions = keyPositions;
    return into;
  }

  /**
   * Counts the command as a read or a write and records each of its keys with the detector.
   *
   * @param argv the command {@code command} was classified from
   */
  public void record(byte[][] argv, ClassifiedCommand command) {
    boolean write = command.writes();
    counts.count(write);
    CommandSpec spec = command.spec;
    int[] hashes = command.hashes;
    for (int n = 0; n < command.keyCount; n++) {
      detector.record(argv[spec.keyIndex(argv, n)], hashes[n], write);
    }
  }

  /**
   * Whether every key of a cacheable read may be served locally now: hot, and accepted by the
   * cache's filters (none is when the cache is off). Notes the read counters of its hot keys in
   * {@code command}, for the gateway to count what became of the read ({@link
   * ClassifiedCommand#countHotKeyReads}); when it may not be served, counts it at once as a miss of
   * each.
   */
  public boolean servableRead(byte[][] argv, ClassifiedCommand command) {
    command.hotKeyCount = 0;
    HotKeyTable table = hotKeys.table();
    if (table.isEmpty()) {
      return false;
    }
    CommandSpec spec = command.spec;
    int[] hashes = command.hashes;
    boolean servable = true;
    for (int n = 0; n < command.keyCount; n++) {
      HotKeyTable.Entry hot = table.find(argv[spec.keyIndex(argv, n)], hashes[n]);
      if (hot == null) {
        servable = false;
      } else {
        servable &= hot.servable;
        command.noteHotKey(hot.reads);
      }
    }
    if (!servable) {
      command.countHotKeyReads(false);
    }
    return servable;
  }

  /** Whether every key of the command may be served locally now (see {@link #servableRead}). */
  public boolean servable(byte[][] argv, ClassifiedCommand command) {
    CommandSpec spec = command.spec;
    int[] hashes = command.hashes;
    for (int n = 0; n < command.keyCount; n++) {
      if (!hotKeys.isServable(argv[spec.keyIndex(argv, n)], hashes[n])) {
        return false;
      }
    }
    return true;
  }

  public AgentErrors errors() {
    return errors;
  }

  /** Commands counted as reads so far, on every client. */
  public long reads() {
    return counts.reads();
  }

  /** Commands counted as writes so far, on every client. */
  public long writes() {
    return counts.writes();
  }
}
