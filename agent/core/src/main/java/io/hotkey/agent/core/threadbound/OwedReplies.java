package io.hotkey.agent.core.threadbound;

import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.OwnWriteEcho;
import io.hotkey.agent.core.ConnectionState;
import io.hotkey.agent.core.ServerSightings;
import io.hotkey.agent.core.WriteSet;
import io.hotkey.agent.redis.resp.RedisEndpoint;

/**
 * The replies one thread-bound connection (Jedis) still owes, and the writes waiting for them; kept
 * with the connection's {@link ConnectionState}, which it tells when an identity is confirmed.
 * Redis answers a connection in order, so the reply that makes the count of replies read reach a
 * write's place in the count of commands sent is that write's own: only then has Redis surely
 * applied it, and only then are its keys' versions bumped (see {@code KeyVersions}). Writes queued
 * inside MULTI run only at EXEC, although their QUEUED replies may come before EXEC is even sent,
 * so they take EXEC's place.
 *
 * <p>Everything here belongs to the connection, never to a thread: a pipeline or a transaction
 * abandoned on one connection leaves the next connection's writes untouched, and whatever it left
 * behind is settled when its connection is closed, lost or reset. A connection is used by one
 * thread at a time, but a pool hands it between threads, and its pool's evictor may close it from
 * another: hence the monitor, uncontended in practice.
 */
final class OwedReplies {
  private final ConnectionState connection;
  private long sent;
  private long read;

  /** Writes sent and not yet answered, and the place of the last of them. */
  private final WriteSet pending = new WriteSet();

  private long pendingUntil;
  private final WriteSet queuedInTransaction = new WriteSet();
  private boolean inTransaction;

  /**
   * The places of the AUTH or HELLO commands whose replies will confirm the connection's identity;
   * 0 if none.
   */
  private long confirmFrom;

  private long confirmUntil;
  private boolean confirmFailed;

  /**
   * The report Redis owes tracking for a plain SET in flight (one at a time), the SET's place, and
   * whether it was answered without an error; settled once the SET's write is.
   */
  private OwnWriteEcho echo;

  private long echoPlace;
  private boolean echoAnswered;

  /** The server last handed to the sightings: a new one (a new login) is handed again. */
  private RedisEndpoint sighted;

  OwedReplies(ConnectionState connection) {
    this.connection = connection;
  }

  /** Tells {@code sightings} the connection's server once per identity the connection takes. */
  void sight(Object socket, ServerSightings sightings) {
    RedisEndpoint server = connection.node(socket);
    if (server != null && server != sighted) {
      sighted = server;
      sightings.sighted(server);
    }
  }

  ConnectionState connection() {
    return connection;
  }

  /** A command is being written; returns its place. */
  synchronized long onSend() {
    return ++sent;
  }

  synchronized void addWrite(long place, int hash) {
    if (inTransaction) {
      queuedInTransaction.add(hash);
    } else {
      pending.add(hash);
      pendingUntil = place;
    }
  }

  synchronized void addWriteToEverything(long place) {
    if (inTransaction) {
      queuedInTransaction.addAll();
    } else {
      pending.addAll();
      pendingUntil = place;
    }
  }

  /** Whether a plain SET sent now may expect its report: none is expected, no MULTI is open. */
  synchronized boolean takesEcho() {
    return echo == null && !inTransaction;
  }

  /** The plain SET sent at {@code place} expects {@code echo}. */
  synchronized void expectEcho(long place, OwnWriteEcho echo) {
    this.echo = echo;
    echoPlace = place;
    echoAnswered = false;
  }

  synchronized void transactionStarted() {
    inTransaction = true;
  }

  /**
   * EXEC, DISCARD or RESET was sent at {@code place}: the queued writes are applied once its reply
   * is read.
   */
  synchronized void transactionEnded(long place) {
    if (!queuedInTransaction.isEmpty()) {
      queuedInTransaction.addTo(pending);
      queuedInTransaction.clear();
      pendingUntil = place;
    }
    inTransaction = false;
  }

  /**
   * An AUTH or HELLO was sent at {@code place}: its reply tells whether the connection is who it
   * asked to be.
   */
  synchronized void identityChangeSent(long place) {
    if (confirmFrom == 0) {
      confirmFrom = place;
      confirmFailed = false;
    }
    confirmUntil = place;
  }

  /** One reply was read; {@code error}: it was an error reply. */
  void onReply(boolean error, KeyVersions versions) {
    boolean confirmed;
    boolean failed;
    synchronized (this) {
      // a push message is read like a reply but answers no command
      read = Math.min(read + 1, sent);
      if (echo != null && read == echoPlace) {
        if (error) {
          echo.cancel();
          echo = null;
        } else {
          echoAnswered = true;
        }
      }
      if (pendingUntil != 0 && read >= pendingUntil) {
        settleWrites(versions);
      }
      if (confirmFrom == 0 || read < confirmFrom) {
        return;
      }
      confirmFailed |= error;
      confirmed = read >= confirmUntil;
      failed = confirmFailed;
      if (confirmed) {
        confirmFrom = 0;
      }
    }
    if (confirmed) {
      connection.identityConfirmed(failed);
    }
  }

  /**
   * The connection was closed, lost, or handed back: no reply it owes will be read. Every write it
   * sent may have been applied, so all of them invalidate now, and an identity it asked for is
   * unknown.
   */
  void settleAll(KeyVersions versions) {
    boolean unconfirmed;
    synchronized (this) {
      queuedInTransaction.addTo(pending);
      queuedInTransaction.clear();
      inTransaction = false;
      if (echo != null && !echoAnswered) {
        echo.cancel();
        echo = null;
      }
      settleWrites(versions);
      read = sent;
      unconfirmed = confirmFrom != 0;
      confirmFrom = 0;
    }
    if (unconfirmed) {
      connection.identityConfirmed(true);
    }
  }

  private void settleWrites(KeyVersions versions) {
    if (echo != null && echoAnswered) {
      echo.invalidatingLocally();
      echo = null;
    }
    pending.bump(versions);
    pending.clear();
    pendingUntil = 0;
  }
}
