package io.hotkey.agent.core.multiplexed;

import io.hotkey.agent.cache.CacheKey;
import io.hotkey.agent.cache.HotKeyReads;
import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.cache.ParkedReads;
import io.hotkey.agent.cache.Resumption;
import io.hotkey.agent.core.PlainSet;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A run of plain {@code SET key value} commands of one hot key, in flight on one multiplexed
 * connection: it starts with a SET sent while no other write to its key's stripe was in flight, and
 * ends once every SET that joined it has been answered. Redis answers a connection in order and a
 * SET leaves its own value whatever came before, so once members are answered {@code OK} the key's
 * value in Redis after each of them is known without asking (up to other processes' writes, which
 * the cache TTL bounds anyway). Two things are done with it:
 *
 * <ul>
 *   <li>{@code GET key} that must see a member (any read of the key while one is in flight, see
 *       {@link InFlightWrites}) is parked behind the members sent before it, instead of going to
 *       Redis behind them, and answered once they are all answered: with the value of the one among
 *       them Redis answered last. Allowed only while every write in flight on the stripe is a
 *       member and every invalidation the stripe saw since the run started is a member's: then
 *       every write the GET must observe (those completed before it, and those sent before it on
 *       its connection) is one of those members, and no write sent after it on its connection can
 *       be in the answer.
 *   <li>Each time a member is answered {@code OK}, its value is stored as the local entry of {@code
 *       GET key}, under a stamp taken after its own invalidation, if the members' are the only
 *       invalidations the stripe saw since the run started. Any other write is applied either
 *       before that check (then nothing is stored) or after it (then its invalidation kills the
 *       entry), because every client path invalidates a key only after Redis has applied the write;
 *       so does the next member's answer.
 * </ul>
 *
 * A hot key written often would otherwise lose its entry at each write and send every read to Redis
 * while the write is in flight and until a fill lands; this keeps it served through the writes.
 */
final class SetRun {
  /** A run takes no more members (and parks no more reads) after this many, so that it ends. */
  static final int MAX_MEMBERS = 64;

  private static final byte[] GET = "GET".getBytes(StandardCharsets.US_ASCII);

  final int hash;
  private final int[] hashes;
  private final String namespace;
  private final int database;
  private final byte[] key;
  private final long[] startStamp;
  private final ParkedReads parked = new ParkedReads();

  /** By member number (1 = the first): the value it set, null until answered OK. */
  private final byte[][] values = new byte[MAX_MEMBERS + 1][];

  /** By member number: its place in the order of answers (1 = answered first), 0 until answered. */
  private final int[] answerOrder = new int[MAX_MEMBERS + 1];

  private int joined = 1;
  private int answered;

  /** Members 1..prefix are all answered. */
  private int prefix;

  private boolean closed;

  private SetRun(String namespace, int database, byte[] key, int hash, long[] startStamp) {
    this.namespace = namespace;
    this.database = database;
    this.key = key;
    this.hash = hash;
    this.hashes = new int[] {hash};
    this.startStamp = startStamp;
  }

  /** Whether argv is exactly {@code GET key}. */
  static boolean isGet(byte[][] argv) {
    return argv.length == 2 && Arrays.equals(argv[0], GET);
  }

  /** A run whose first member (number 1) was just counted in flight, alone on its stripe. */
  static SetRun start(String namespace, int database, byte[] key, int hash, KeyVersions versions) {
    return new SetRun(namespace, database, key, hash, versions.stamp(new int[] {hash}));
  }

  /**
   * Adds a SET of the same key on the same connection, before it is counted in flight; returns its
   * member number, or 0.
   */
  synchronized int join(String setNamespace, byte[] setKey) {
    if (closed
        || joined >= MAX_MEMBERS
        || !namespace.equals(setNamespace)
        || !Arrays.equals(key, setKey)) {
      return 0;
    }
    return ++joined;
  }

  /**
   * Parks {@code GET key} behind the members sent so far, if their outcome answers it (see the
   * class comment).
   */
  synchronized boolean parkGet(
      String readNamespace,
      byte[] readKey,
      Object connection,
      Object command,
      HotKeyReads[] hotKeys,
      InFlightWrites inFlight,
      KeyVersions versions) {
    return !closed
        && namespace.equals(readNamespace)
        && Arrays.equals(key, readKey)
        && inFlight.onlyWrites(hash, joined - answered)
        && versions.advancedBy(startStamp, hash, answered)
        && parked.park(connection, command, hotKeys, joined);
  }

  /**
   * Member {@code member}'s reply started (after its own invalidation), or its command ended
   * without one. Returns the parked reads whose members are now all answered, to resume (in the
   * format of {@link ParkedReads#settle}), or null.
   *
   * @param server the server the member was written to, null if unknown
   * @param reply the member's first reply bytes, null if none came
   */
  synchronized List<Resumption> memberDone(
      int member,
      byte[] value,
      RedisEndpoint server,
      ByteBuffer reply,
      InFlightWrites inFlight,
      KeyVersions versions,
      NearCache cache) {
    answerOrder[member] = ++answered;
    values[member] = PlainSet.isOk(reply) ? value : null;
    if (values[member] != null) {
      // answered last, so applied last: its value is the key's value now
      long[] now = versions.stamp(hashes);
      if (KeyVersions.advancedBetween(startStamp, now, answered)) {
        cache.putWritten(
            server,
            new CacheKey(namespace, database, new byte[][] {GET, key}, 1L << 1, hashes),
            Collections.singletonList(value),
            hashes,
            now);
      }
    }
    while (prefix < joined && answerOrder[prefix + 1] != 0) {
      prefix++;
    }
    if (answered == joined) {
      closed = true;
      inFlight.unpublish(this);
    }
    return parked.handBack(prefix, this::valueAfter);
  }

  /**
   * The reply of {@code GET key} once members 1..{@code members} are answered: the value of the one
   * answered last.
   */
  private Object valueAfter(int members) {
    int last = 1;
    for (int m = 2; m <= members; m++) {
      if (answerOrder[m] > answerOrder[last]) {
        last = m;
      }
    }
    return values[last] == null ? ParkedReads.NO_ANSWER : Collections.singletonList(values[last]);
  }
}
