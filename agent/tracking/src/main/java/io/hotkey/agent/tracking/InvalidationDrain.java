package io.hotkey.agent.tracking;

import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.redis.resp.RespDecoder;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The invalidation connection of a {@link TrackingSession}, read without ever blocking on its
 * socket by whichever thread comes first: the session's reader thread, woken by a {@link Selector}
 * when bytes arrive, or a thread about to serve a hit that finds the last drain older than its
 * budget ({@link #caughtUp}). On a machine whose cores are all busy serving hits the reader thread
 * may wait many milliseconds for a core while a report sits in the socket; the threads serving hits
 * are running by definition, so one of them applies it instead.
 *
 * <p>One thread drains at a time, under a lock that hit threads only try: a hit thread that finds
 * it held does not wait. Messages are decoded and handed on in the order they were received, under
 * the lock, so a report is applied (its key's version bumped) before the drain that read it ends,
 * whichever thread that is.
 */
final class InvalidationDrain {
  /** Reads at most this many buffers in one help, so that a flood of reports cannot hold a hit. */
  private static final int MOST_READS_PER_HELP = 16;

  /** Where the drained messages go, on the draining thread, in order. */
  interface Messages {
    void onMessage(Object message);

    /** The stream failed (not closed by the agent); called once, by the thread that noticed. */
    void onFailed(Exception failure);
  }

  private final SocketChannel channel;
  private final Messages messages;
  private final LongSupplier clock;
  private final LongAdder helped;
  private final Selector selector;
  private final ReentrantLock lock = new ReentrantLock();
  private final ByteBuffer chunk = ByteBuffer.allocate(16 * 1024);
  private final ReceivedBytes received = new ReceivedBytes();
  private final RespDecoder decoder = new RespDecoder(received);

  /**
   * When the socket was last found empty, read before that read: every message received by then has
   * been handed on.
   */
  private volatile long drainedAtNanos;

  /** Closed or failed: nothing more will be read, so nothing is owed. */
  private volatile boolean finished;

  /**
   * @param connection a connection whose channel {@link RespConnection#switchToNonBlocking} has not
   *     been called on yet; from now on only this drain reads it
   * @param helped counts the messages hit threads handed on
   */
  InvalidationDrain(
      RespConnection connection, Messages messages, LongSupplier clock, LongAdder helped)
      throws IOException {
    this.channel = connection.channel();
    this.messages = messages;
    this.clock = clock;
    this.helped = helped;
    this.drainedAtNanos = clock.getAsLong();
    byte[] early = connection.switchToNonBlocking(TrackingSession.TIMEOUT_MILLIS);
    // the handshake's replies leave nothing behind them, but whatever is there comes first
    received.append(early, early.length);
    decodeAll(false);
    this.selector = Selector.open();
    try {
      channel.register(selector, SelectionKey.OP_READ);
    } catch (IOException | RuntimeException e) {
      selector.close();
      throw e;
    }
  }

  /** Starts the thread that drains whenever bytes arrive, whether or not anyone helps. */
  void startReader(String name) {
    Thread reader = new Thread(this::readWhileOpen, name);
    reader.setDaemon(true);
    reader.start();
  }

  private void readWhileOpen() {
    try {
      while (!finished) {
        selector.select();
        selector.selectedKeys().clear();
        lock.lock();
        try {
          drain(false, Integer.MAX_VALUE);
        } finally {
          lock.unlock();
        }
      }
    } catch (IOException | RuntimeException e) {
      fail(e);
    } finally {
      try {
        selector.close();
      } catch (IOException ignored) {
        // the selector held nothing else
      }
    }
  }

  /**
   * Whether every message received at least {@code budgetNanos} before {@code nowNanos} has been
   * handed on. If the last drain is older, drains now on the caller's thread, unless another thread
   * is draining at this moment: then it does not wait, and answers false (the caller does not know
   * what that drain will apply, so it must not serve from the cache).
   */
  boolean caughtUp(long nowNanos, long budgetNanos) {
    if (finished || nowNanos - drainedAtNanos <= budgetNanos) {
      return true;
    }
    if (!lock.tryLock()) {
      return finished || nowNanos - drainedAtNanos <= budgetNanos;
    }
    try {
      drain(true, MOST_READS_PER_HELP);
    } catch (IOException | RuntimeException e) {
      fail(e);
    } finally {
      lock.unlock();
    }
    return finished || nowNanos - drainedAtNanos <= budgetNanos;
  }

  /**
   * Reads what the socket holds, handing on each complete message, until it is empty or {@code
   * mostReads} reads were made. Under the lock.
   */
  private void drain(boolean helping, int mostReads) throws IOException {
    for (int reads = 0; reads < mostReads && !finished; reads++) {
      long before = clock.getAsLong();
      chunk.clear();
      int read = channel.read(chunk);
      if (read < 0) {
        throw new EOFException("Redis closed the connection");
      }
      if (read == 0) {
        drainedAtNanos = before;
        return;
      }
      received.append(chunk.array(), read);
      decodeAll(helping);
    }
  }

  private void decodeAll(boolean helping) throws IOException {
    while (received.available() > 0) {
      received.mark();
      Object message;
      try {
        message = decoder.next();
      } catch (ReceivedBytes.Incomplete rest) {
        received.backToMark(); // the rest of the message is still on its way
        break;
      }
      messages.onMessage(message);
      if (helping) {
        helped.increment();
      }
    }
    received.compact();
  }

  private void fail(Exception failure) {
    boolean first = !finished;
    finished = true;
    if (first) {
      messages.onFailed(failure);
    }
  }

  /** Stops the reader; the caller closes the connection. Nothing is owed from now on. */
  void close() {
    finished = true;
    selector.wakeup();
  }

  /**
   * Bytes taken from the socket and not yet decoded, as a stream the decoder reads; running out of
   * them mid-message throws {@link Incomplete} rather than blocking or ending.
   */
  static final class ReceivedBytes extends InputStream {
    /** Thrown where the received bytes end inside a message; carries no stack. */
    static final class Incomplete extends IOException {
      private static final long serialVersionUID = 1L;

      private Incomplete() {
        super("the message continues in bytes not received yet");
      }

      @Override
      public synchronized Throwable fillInStackTrace() {
        return this; // thrown at every partial message: a stack would be the whole cost
      }
    }

    /** One per stream, thrown again and again: it carries nothing but its type. */
    private final Incomplete incomplete = new Incomplete();

    private byte[] bytes = new byte[16 * 1024];
    private int position;
    private int limit;
    private int markedPosition;

    void append(byte[] from, int length) {
      if (limit + length > bytes.length) {
        compact();
        if (limit + length > bytes.length) {
          bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, limit + length));
        }
      }
      System.arraycopy(from, 0, bytes, limit, length);
      limit += length;
    }

    void mark() {
      markedPosition = position;
    }

    void backToMark() {
      position = markedPosition;
    }

    /** Drops the decoded bytes. */
    void compact() {
      System.arraycopy(bytes, position, bytes, 0, limit - position);
      limit -= position;
      position = 0;
      markedPosition = 0;
    }

    @Override
    public int available() {
      return limit - position;
    }

    @Override
    public int read() throws IOException {
      if (position == limit) {
        throw incomplete;
      }
      return bytes[position++] & 0xff;
    }

    @Override
    public int read(byte[] into, int offset, int length) throws IOException {
      if (length == 0) {
        return 0;
      }
      if (position == limit) {
        throw incomplete;
      }
      int copied = Math.min(length, limit - position);
      System.arraycopy(bytes, position, into, offset, copied);
      position += copied;
      return copied;
    }
  }
}
