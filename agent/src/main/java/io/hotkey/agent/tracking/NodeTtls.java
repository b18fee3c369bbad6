package io.hotkey.agent.tracking;

import io.hotkey.agent.cache.RemainingTtls;
import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.redis.resp.RespError;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One server's TTL questions, answered on a thread of its own: every question waiting when the
 * thread wakes is sent as one pipeline of {@code PTTL}s. A question that fails (the connection
 * broke, the server refused {@code PTTL}) is told it gets no answer, which leaves its entry
 * unserved until {@code hotkey.cache.ttl} drops it; for a second after a failed connection new
 * questions are refused at once, so that no reader waits on a server that cannot answer.
 */
final class NodeTtls implements Runnable {
  private static final byte[] PTTL = RespConnection.bytes("PTTL");
  private static final byte[] CLIENT = RespConnection.bytes("CLIENT");
  private static final byte[] SETNAME = RespConnection.bytes("SETNAME");
  private static final byte[] NAME = RespConnection.bytes(TrackingSession.CLIENT_NAME);

  /** Questions sent in one pipeline at most, so a burst of fills cannot grow one without bound. */
  private static final int MAX_PIPELINE = 256;

  private static final long RETRY_MILLIS = 1000;

  private final String node;
  private final RedisEndpoint endpoint;
  private final LinkedBlockingQueue<Question> questions = new LinkedBlockingQueue<>();
  private final AtomicBoolean started = new AtomicBoolean();

  /** {@link System#nanoTime} before which questions are refused, after a failure. */
  private volatile long refusingUntilNanos = System.nanoTime();

  private boolean refusalLogged;
  private boolean failureLogged;

  private static final class Question {
    final byte[][] keys;
    final RemainingTtls.Answer answer;

    Question(byte[][] keys, RemainingTtls.Answer answer) {
      this.keys = keys;
      this.answer = answer;
    }
  }

  NodeTtls(String node, RedisEndpoint endpoint) {
    this.node = node;
    this.endpoint = endpoint;
  }

  void startOnce() {
    if (!started.compareAndSet(false, true)) {
      return;
    }
    Thread thread = new Thread(this, "hotkey-ttl-" + node);
    thread.setDaemon(true);
    thread.start();
  }

  /** Queues the question; false, asking nothing, while the server is known not to answer. */
  boolean ask(byte[][] keys, RemainingTtls.Answer answer) {
    if (System.nanoTime() - refusingUntilNanos < 0) {
      return false;
    }
    questions.add(new Question(keys, answer));
    return true;
  }

  @Override
  public void run() {
    RespConnection connection = null;
    List<Question> batch = new ArrayList<>();
    try {
      while (true) {
        batch.clear();
        batch.add(questions.take());
        questions.drainTo(batch, MAX_PIPELINE - 1);
        try {
          if (connection == null || connection.isBroken()) {
            if (connection != null) {
              connection.close();
            }
            connection = connect();
          }
          askAll(connection, batch);
          failureLogged = false;
        } catch (IOException | RuntimeException e) {
          // the batch's entries stay unserved; their keys' next fills ask again
          refusingUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS);
          for (Question question : batch) {
            question.answer.unanswered();
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

  /** Pipelines one {@code PTTL} per key of every question, then reads the answers in order. */
  private void askAll(RespConnection connection, List<Question> batch) throws IOException {
    long sentAtNanos = System.nanoTime();
    for (Question question : batch) {
      for (byte[] key : question.keys) {
        connection.send(PTTL, key);
      }
    }
    for (Question question : batch) {
      long least = RemainingTtls.NO_TTL;
      boolean answered = true;
      for (int i = 0; i < question.keys.length; i++) {
        Object reply = connection.read();
        if (!(reply instanceof Long)) {
          answered = false;
          logRefusal(reply);
          continue;
        }
        least = leastOf(least, (Long) reply);
      }
      if (answered && question.keys.length > 0) {
        question.answer.answered(sentAtNanos, least);
      } else {
        question.answer.unanswered();
      }
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

  private void logRefusal(Object reply) {
    if (!refusalLogged) {
      refusalLogged = true;
      AgentLog.warn(
          node
              + " answered PTTL with "
              + (reply instanceof RespError ? reply : String.valueOf(reply))
              + "; hot keys read from it are not served locally while it does");
    }
  }
}
