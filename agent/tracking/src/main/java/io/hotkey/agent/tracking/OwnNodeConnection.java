package io.hotkey.agent.tracking;

import io.hotkey.agent.cache.RemainingTtls;
import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.redis.resp.ClusterSlots;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.redis.resp.RespError;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The agent's own connection to one server and database, with a thread of its own: every request
 * waiting when the thread wakes ({@code PTTL} questions of new entries, {@code TOUCH} rounds of
 * served keys) is sent as one pipeline. A question that fails (the connection broke, the server
 * refused {@code PTTL}) is told it gets no answer, which leaves its entry unserved until {@code
 * hotkey.cache.ttl} drops it; for a second after a failed connection new questions are refused at
 * once, so that no reader waits on a server that cannot answer. A refused {@code TOUCH} is logged
 * once and not sent again: serving goes on.
 */
final class OwnNodeConnection implements Runnable {
  private static final byte[] PTTL = RespConnection.bytes("PTTL");
  private static final byte[] TOUCH = RespConnection.bytes("TOUCH");
  private static final byte[] CLIENT = RespConnection.bytes("CLIENT");
  private static final byte[] SETNAME = RespConnection.bytes("SETNAME");
  private static final byte[] NAME = RespConnection.bytes(TrackingSession.CLIENT_NAME);

  /** Requests sent in one pipeline at most, so a burst of fills cannot grow one without bound. */
  private static final int MAX_PIPELINE = 256;

  /** Keys in one {@code TOUCH} at most. */
  private static final int MAX_TOUCH_KEYS = 512;

  private static final long RETRY_MILLIS = 1000;

  private final String node;
  private final RedisEndpoint endpoint;
  private final LinkedBlockingQueue<Request> requests = new LinkedBlockingQueue<>();
  private final AtomicBoolean started = new AtomicBoolean();

  /** {@link System#nanoTime} before which questions are refused, after a failure. */
  private volatile long refusingUntilNanos = System.nanoTime();

  /** The server refused {@code TOUCH}: no more are sent. */
  private volatile boolean touchRefused;

  /**
   * The server is a Cluster node ({@code TOUCH} of keys in several slots was refused); only the
   * connection's thread reads and sets it.
   */
  private boolean bySlot;

  private boolean ttlRefusalLogged;
  private boolean failureLogged;

  /** One piece of work in a pipeline: sends its commands, then reads their replies in order. */
  private abstract static class Request {
    abstract void send(RespConnection connection) throws IOException;

    abstract void read(RespConnection connection, long sentAtNanos) throws IOException;

    /** The pipeline failed before this request's replies were all read. */
    void failed() {}
  }

  private final class TtlQuestion extends Request {
    final byte[][] keys;
    final RemainingTtls.Answer answer;

    TtlQuestion(byte[][] keys, RemainingTtls.Answer answer) {
      this.keys = keys;
      this.answer = answer;
    }

    @Override
    void send(RespConnection connection) throws IOException {
      for (byte[] key : keys) {
        connection.send(PTTL, key);
      }
    }

    @Override
    void read(RespConnection connection, long sentAtNanos) throws IOException {
      long least = RemainingTtls.NO_TTL;
      boolean answered = true;
      for (int i = 0; i < keys.length; i++) {
        Object reply = connection.read();
        if (!(reply instanceof Long)) {
          answered = false;
          logTtlRefusal(reply);
          continue;
        }
        least = leastOf(least, (Long) reply);
      }
      if (answered && keys.length > 0) {
        answer.answered(sentAtNanos, least);
      } else {
        answer.unanswered();
      }
    }

    @Override
    void failed() {
      answer.unanswered();
    }
  }

  private final class Touches extends Request {
    final List<byte[]> keys;
    private int sent;

    Touches(List<byte[]> keys) {
      this.keys = keys;
    }

    @Override
    void send(RespConnection connection) throws IOException {
      if (touchRefused) {
        return;
      }
      for (List<byte[]> group : groups()) {
        for (int from = 0; from < group.size(); from += MAX_TOUCH_KEYS) {
          List<byte[]> chunk = group.subList(from, Math.min(group.size(), from + MAX_TOUCH_KEYS));
          byte[][] args = new byte[chunk.size() + 1][];
          args[0] = TOUCH;
          for (int i = 0; i < chunk.size(); i++) {
            args[i + 1] = chunk.get(i);
          }
          connection.send(args);
          sent++;
        }
      }
    }

    /** All keys in one group on a server without slots; one group per slot on a Cluster node. */
    private Iterable<List<byte[]>> groups() {
      if (!bySlot) {
        return List.of(keys);
      }
      Map<Integer, List<byte[]>> bySlotGroups = new LinkedHashMap<>();
      for (byte[] key : keys) {
        bySlotGroups.computeIfAbsent(ClusterSlots.slot(key), s -> new ArrayList<>()).add(key);
      }
      return bySlotGroups.values();
    }

    @Override
    void read(RespConnection connection, long sentAtNanos) throws IOException {
      for (int i = 0; i < sent; i++) {
        Object reply = connection.read();
        if (reply instanceof RespError) {
          refused((RespError) reply);
        }
      }
    }

    private void refused(RespError error) {
      String message = error.message();
      if (message.startsWith("CROSSSLOT")) {
        if (!bySlot) {
          // a Cluster node: this round goes again at once, and every later one, one TOUCH per slot
          bySlot = true;
          requests.add(new Touches(keys));
        }
        return;
      }
      if (!message.startsWith("NOPERM") && !message.startsWith("ERR unknown command")) {
        // a slot that moved, a server loading: the next round tries again
        return;
      }
      if (!touchRefused) {
        touchRefused = true;
        AgentLog.warn(
            node
                + " answered TOUCH with "
                + error
                + "; its eviction no longer sees the reads the agent answers locally, which go on"
                + " (grant the agent's user TOUCH to keep them hot there)");
      }
    }
  }

  OwnNodeConnection(String node, RedisEndpoint endpoint) {
    this.node = node;
    this.endpoint = endpoint;
  }

  void startOnce() {
    if (!started.compareAndSet(false, true)) {
      return;
    }
    Thread thread = new Thread(this, "hotkey-own-" + node);
    thread.setDaemon(true);
    thread.start();
  }

  /** Queues the question; false, asking nothing, while the server is known not to answer. */
  boolean ask(byte[][] keys, RemainingTtls.Answer answer) {
    if (System.nanoTime() - refusingUntilNanos < 0) {
      return false;
    }
    requests.add(new TtlQuestion(keys, answer));
    return true;
  }

  /** Queues a round's touches, unless the server refused them. */
  void touch(List<byte[]> keys) {
    if (!touchRefused && !keys.isEmpty()) {
      requests.add(new Touches(keys));
    }
  }

  @Override
  public void run() {
    RespConnection connection = null;
    List<Request> batch = new ArrayList<>();
    try {
      while (true) {
        batch.clear();
        batch.add(requests.take());
        requests.drainTo(batch, MAX_PIPELINE - 1);
        try {
          if (connection == null || connection.isBroken()) {
            if (connection != null) {
              connection.close();
            }
            connection = connect();
          }
          sendAll(connection, batch);
          failureLogged = false;
        } catch (IOException | RuntimeException e) {
          // the batch's entries stay unserved; their keys' next fills ask again
          refusingUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS);
          for (Request request : batch) {
            request.failed();
          }
          if (!failureLogged) {
            failureLogged = true;
            AgentLog.warn(
                "cannot ask "
                    + node
                    + " for hot keys' TTLs ("
                    + e.getMessage()
                    + "); their entries are not served until it answers");
          }
          if (connection != null) {
            connection.close();
            connection = null;
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (connection != null) {
        connection.close();
      }
    }
  }

  private RespConnection connect() throws IOException {
    RespConnection connection =
        new RespConnection(
            endpoint, TrackingSession.TIMEOUT_MILLIS, TrackingSession.TIMEOUT_MILLIS);
    try {
      connection.call(CLIENT, SETNAME, NAME);
      return connection;
    } catch (IOException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  /** Pipelines every request's commands, then reads the replies in order. */
  private static void sendAll(RespConnection connection, List<Request> batch) throws IOException {
    long sentAtNanos = System.nanoTime();
    for (Request request : batch) {
      request.send(connection);
    }
    for (Request request : batch) {
      request.read(connection, sentAtNanos);
    }
  }

  /** The shorter life of two {@code PTTL} answers, where a missing key is the shortest. */
  static long leastOf(long least, long pttl) {
    if (least == RemainingTtls.MISSING || pttl == RemainingTtls.MISSING) {
      return RemainingTtls.MISSING;
    }
    if (pttl < 0) {
      return least;
    }
    return least < 0 ? pttl : Math.min(least, pttl);
  }

  private void logTtlRefusal(Object reply) {
    if (!ttlRefusalLogged) {
      ttlRefusalLogged = true;
      AgentLog.warn(
          node
              + " answered PTTL with "
              + (reply instanceof RespError ? reply : String.valueOf(reply))
              + "; hot keys read from it are not served locally while it does");
    }
  }
}
