package io.hotkey.agent.core.multiplexed;

import io.hotkey.agent.cache.CacheKey;
import io.hotkey.agent.cache.CachedReply;
import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.cache.OwnWriteEcho;
import io.hotkey.agent.cache.ParkedReads;
import io.hotkey.agent.cache.ReadFill;
import io.hotkey.agent.cache.Resumption;
import io.hotkey.agent.core.PlainSet;
import io.hotkey.agent.core.WriteSet;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * What the agent waits for in one command's reply, for clients whose replies are decoded on another
 * thread than the caller's (Lettuce): the keys it writes, invalidated as soon as its reply starts
 * (Redis has applied the write by then, and the caller cannot have seen the completion yet), and
 * the local entry it fills, recorded callback by callback; for a hot read sent while serving stale
 * on error is on, the entry that may answer it if it fails on its connection.
 *
 * <p>Events arrive on the connection's I/O thread, the end of the command possibly on another
 * (timeouts, cancellation), hence the lock; it is uncontended in practice.
 */
final class TrackedReply {
  private final KeyVersions versions;
  private final InFlightWrites inFlight;
  private final NearCache cache;
  private WriteSet writes;

  /** The writes' sending thread's own count (a command is sent by one thread). */

  /**
   * The run this command is a member of when it is a plain SET of a hot key, and the value it sets.
   */
  private SetRun setRun;

  private int setMember;
  private byte[] setValue;

  /**
   * For a plain SET of a hot key, its key until its server is known, then the report of it that
   * tracking expects from there.
   */
  private byte[] echoKey;

  private OwnWriteEcho echo;

  /** The server the command was last written to, or null when the client could not tell. */
  private RedisEndpoint server;

  private ReadFill fill;
  private ReplyTape.Recorder recorder;

  /**
   * Reads parked behind this command, handed back when it ends (see {@link ParkedReads#settle}).
   */
  private List<Resumption> resumed = List.of();

  /** The entry that may answer this read if it fails on its connection; null for other commands. */
  private CacheKey staleKey;

  private int[] staleKeyHashes;

  /** The decoder has this reply object: a reply is arriving, and no other answer may go into it. */
  private boolean decoding;

  /** This read was answered from {@link #staleKey}: the decoder must not write into its reply. */
  private boolean answeredStale;

  TrackedReply(KeyVersions versions, InFlightWrites inFlight, NearCache cache) {
    this.versions = versions;
    this.inFlight = inFlight;
    this.cache = cache;
  }

  /**
   * @param added taken over, not copied: the caller hands a set it no longer uses
   * @param setNamespace for a plain {@code SET key value} of a hot key ({@code setArgv}, whose one
   *     key {@code added} holds), the connection's namespace: the SET joins or starts a {@link
   *     SetRun}; else null
   * @param setDatabase with {@code setNamespace}, the connection's database
   */
  synchronized void addWrites(
      WriteSet added, String setNamespace, int setDatabase, byte[][] setArgv, int setHash) {
    if (writes == null) {
      writes = added;
    } else {
      added.addTo(writes);
    }
    SetRun run = setNamespace == null ? null : inFlight.run(setHash);
    int member = run == null ? 0 : run.join(setNamespace, setArgv[1]);
    boolean alone = inFlight.acquire(added);
    if (setNamespace != null && member == 0 && alone) {
      run = SetRun.start(setNamespace, setDatabase, setArgv[1], setHash, versions);
      inFlight.publish(run);
      member = 1;
    }
    if (member > 0) {
      setRun = run;
      setMember = member;
      setValue = setArgv[2];
    }
    if (setNamespace != null) {
      echoKey = setArgv[1];
    }
  }

  /** The read may be answered from {@code key}'s entry if it fails on its connection. */
  synchronized void answerableStale(CacheKey key, int[] keyHashes) {
    staleKey = key;
    staleKeyHashes = keyHashes;
  }

  synchronized boolean answerableStale() {
    return staleKey != null && !decoding && !answeredStale;
  }

  /**
   * The decoder is about to write a reply into the reply object: false if the read was answered
   * stale (the reply goes nowhere), else true, and from now on the read is not.
   */
  synchronized boolean decoderMayWrite() {
    if (answeredStale) {
      return false;
    }
    decoding = true;
    return true;
  }

  /**
   * The read failed on its connection: the entry to answer it with, if {@link NearCache#stale} has
   * one and no reply has started to arrive; null otherwise. Reads parked behind its fill get the
   * same answer (they read the same entry, and the fill they wait for will never carry one).
   */
  synchronized CachedReply answerStale() {
    if (!answerableStale()) {
      return null;
    }
    CachedReply stale = cache.stale(staleKey, staleKeyHashes);
    if (stale == null) {
      return null;
    }
    answeredStale = true;
    if (fill != null) {
      cache.abandon(fill);
      List<Resumption> parked = fill.parked().settle(stale.shared());
      cache.countStale(parked.size());
      addResumed(parked);
      fill = null;
      recorder = null;
    }
    return stale;
  }

  /**
   * The command was written to {@code server}: a fill's reply comes from there, and a plain SET's
   * report is expected from there.
   */
  synchronized void writtenTo(RedisEndpoint server) {
    this.server = server;
    if (fill != null) {
      fill.readThrough(server);
    }
    if (echoKey != null && echo == null && server != null) {
      echo = cache.expectEcho(server, echoKey);
    }
  }

  synchronized void startFill(ReadFill fill, long maxBytes) {
    if (this.fill != null) {
      cache.abandon(this.fill);
      settleParked(this.fill.parked(), ParkedReads.NO_ANSWER);
    }
    this.fill = fill;
    this.recorder = new ReplyTape.Recorder(maxBytes);
  }

  /**
   * Any part of the reply arrived: the writes are applied; an error reply (a cluster redirection,
   * say) may be retried elsewhere.
   */
  private void replyStarted(boolean error, ByteBuffer firstBytes) {
    if (writes == null) {
      return;
    }
    if (echo != null) {
      if (!error && PlainSet.isOk(firstBytes)) {
        echo.invalidatingLocally();
      } else {
        echo.cancel();
      }
      echo = null;
    }
    writes.bump(versions);
    if (!error) {
      if (setRun != null) {
        setDone(firstBytes);
      }
      settleWrites(false);
    }
  }

  private void setDone(ByteBuffer reply) {
    addResumed(setRun.memberDone(setMember, setValue, server, reply, inFlight, versions, cache));
    setRun = null;
    setValue = null;
  }

  private void settleParked(ParkedReads parked, Object answer) {
    addResumed(parked.settle(answer));
  }

  private void addResumed(List<Resumption> more) {
    if (more.isEmpty()) {
      return;
    }
    if (resumed.isEmpty()) {
      resumed = more;
    } else {
      // the same command cannot both fill and write, but keep every parked read if it ever does
      List<Resumption> both = new ArrayList<>(resumed);
      both.addAll(more);
      resumed = both;
    }
  }

  private void settleWrites(boolean bump) {
    if (bump) {
      writes.bump(versions);
    }
    inFlight.release(writes);
    writes = null;
  }

  synchronized void onBulk(ByteBuffer bytes, boolean bigNumber) {
    replyStarted(false, bytes);
    if (recorder != null) {
      if (bigNumber) {
        recorder.bigNumber(bytes);
      } else {
        recorder.bulk(bytes);
      }
      afterRecord();
    }
  }

  synchronized void onScalar(Object value) {
    replyStarted(false, null);
    if (recorder != null) {
      recorder.scalar(value, 16);
      afterRecord();
    }
  }

  synchronized void onAggregate(int op, int count) {
    replyStarted(false, null);
    if (recorder != null) {
      recorder.aggregate(op, count);
      afterRecord();
    }
  }

  synchronized void onError() {
    replyStarted(true, null);
    if (recorder != null) {
      recorder.fail();
      afterRecord();
    }
  }

  private void afterRecord() {
    if (recorder.failed()) {
      cache.abandon(fill);
      settleParked(fill.parked(), ParkedReads.NO_ANSWER);
      fill = null;
      recorder = null;
    } else if (recorder.finished()) {
      ReadFill done = fill;
      List<Object> tape = recorder.tape();
      fill = null;
      recorder = null;
      cache.complete(done, tape);
      settleParked(done.parked(), tape);
    }
  }

  /**
   * The command ended (answered, failed, cancelled): nothing more will arrive for it. Returns the
   * reads parked behind it, for the adapter to resume now that the command's own caller has its
   * answer, in the order they were parked. A second call finds nothing left.
   */
  synchronized List<Resumption> done() {
    if (echo != null) {
      echo.cancel();
      echo = null;
    }
    if (writes != null) {
      settleWrites(true);
    }
    if (setRun != null) {
      setDone(null);
    }
    if (fill != null) {
      cache.abandon(fill);
      settleParked(fill.parked(), ParkedReads.NO_ANSWER);
      fill = null;
      recorder = null;
    }
    List<Resumption> handedBack = resumed;
    resumed = List.of();
    return handedBack;
  }
}
