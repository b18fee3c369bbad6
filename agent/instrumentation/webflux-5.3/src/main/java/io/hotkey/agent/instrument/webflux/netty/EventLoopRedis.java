package io.hotkey.agent.instrument.webflux.netty;

import io.hotkey.agent.idempotency.redis.RespTransport;
import io.hotkey.agent.redis.resp.RespDecoder;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.Future;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One pipelined connection to Redis owned by one event loop of the application's server: commands
 * are written, and replies read and handed on, on that loop, so a request served there never
 * changes thread for its store calls. Everything but {@link #send} runs on the loop. Like the
 * agent's blocking client it connects when first needed, fails at once for {@code downMillis} after
 * a connection could not be made, and drops the connection (failing every command in flight) when a
 * reply is later than the read timeout or the connection breaks; the next command connects again.
 * Sharable only in that a broken connection's late events are ignored: the loop has one connection
 * at a time.
 */
@ChannelHandler.Sharable
public final class EventLoopRedis extends ChannelInboundHandlerAdapter implements RespTransport {
  private static final byte[] NO_BYTES = new byte[0];
  private static final byte[] CRLF = {'\r', '\n'};

  private final EventLoop loop;
  private final Bootstrap bootstrap;
  private final String host;
  private final int port;
  private final long readTimeoutNanos;
  private final long downNanos;
  private final Executor blockingCalls;

  /** The connection being made or in use; null when there is none. */
  private Object attempt;

  /** The attempt's connection once opening; null before, and when there is none. */
  private Channel channel;

  private boolean connected;

  /** Commands sent or waiting for the connection, in order, each waiting for its reply. */
  private final ArrayDeque<PendingCommand> inFlight = new ArrayDeque<>();

  /** Commands that wait for the connection to open. */
  private final List<byte[][]> unsent = new ArrayList<>();

  /** The start of a reply whose rest has not arrived. */
  private byte[] unread = NO_BYTES;

  /** {@link System#nanoTime} until which a command fails at once: Redis could not be reached. */
  private long downUntil = System.nanoTime();

  /**
   * @param socketType the class of the server's own connections (NIO, epoll...), which suits this
   *     loop
   * @param blockingCalls where the host name is resolved, off the loop
   */
  public EventLoopRedis(
      EventLoop loop,
      Class<? extends Channel> socketType,
      String host,
      int port,
      long connectTimeoutMillis,
      long readTimeoutMillis,
      long downMillis,
      Executor blockingCalls) {
    this.loop = loop;
    this.host = host;
    this.port = port;
    this.readTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(readTimeoutMillis);
    this.downNanos = TimeUnit.MILLISECONDS.toNanos(downMillis);
    this.blockingCalls = blockingCalls;
    this.bootstrap =
        new Bootstrap()
            .group(loop)
            .channelFactory((ChannelFactory<Channel>) () -> newSocket(socketType))
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeoutMillis)
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(this);
  }

  private static Channel newSocket(Class<? extends Channel> socketType) {
    try {
      return socketType.getConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("no " + socketType.getName() + " for Redis", e);
    }
  }

  @Override
  public CompletionStage<Object> send(byte[][] command) {
    PendingCommand pending = new PendingCommand();
    if (loop.inEventLoop()) {
      sendOnLoop(command, pending);
    } else {
      try {
        loop.execute(() -> sendOnLoop(command, pending));
      } catch (RejectedExecutionException e) {
        pending.reply.completeExceptionally(new IOException("the event loop is shut down", e));
      }
    }
    return pending.reply;
  }

  /**
   * Anything thrown here (a buffer that cannot be allocated, a channel closed under the write)
   * drops the connection and fails every command in flight: a command queued but never written
   * would take the next command's reply.
   */
  private void sendOnLoop(byte[][] command, PendingCommand pending) {
    try {
      queue(command, pending);
    } catch (Throwable t) {
      broken(t);
      pending.reply.completeExceptionally(t);
    }
  }

  private void queue(byte[][] command, PendingCommand pending) {
    if (attempt == null) {
      if (System.nanoTime() - downUntil < 0) {
        pending.reply.completeExceptionally(
            new IOException("Redis at " + host + ":" + port + " is unreachable"));
        return;
      }
      connect();
      if (attempt == null) {
        pending.reply.completeExceptionally(
            new IOException("Redis at " + host + ":" + port + " could not be reached"));
        return;
      }
    }
    pending.timeout = loop.schedule(() -> late(pending), readTimeoutNanos, TimeUnit.NANOSECONDS);
    inFlight.add(pending);
    if (connected) {
      Channel open = channel;
      write(open, command);
      open.flush();
    } else {
      unsent.add(command);
    }
  }

  /**
   * Opens the connection: at once for an IP address; for a host name after resolving it off the
   * loop, since DNS blocks.
   */
  private void connect() {
    Object resolving = new Object();
    attempt = resolving;
    byte[] ip = NetUtil.createByteArrayFromIpAddressString(host);
    if (ip != null) {
      try {
        open(resolving, new InetSocketAddress(InetAddress.getByAddress(host, ip), port));
      } catch (IOException | RuntimeException e) {
        connectFailed(resolving, e);
      }
      return;
    }
    try {
      blockingCalls.execute(
          () -> {
            InetSocketAddress address;
            try {
              address = new InetSocketAddress(InetAddress.getByName(host), port);
            } catch (IOException | RuntimeException e) {
              loop.execute(() -> connectFailed(resolving, e));
              return;
            }
            loop.execute(() -> open(resolving, address));
          });
    } catch (RejectedExecutionException e) {
      connectFailed(resolving, e);
    }
  }

  private void open(Object resolving, InetSocketAddress address) {
    if (attempt != resolving) {
      return; // given up meanwhile
    }
    ChannelFuture opening = bootstrap.connect(address);
    Channel opened = opening.channel();
    channel = opened;
    // a socket that could not even be created (too many open files) fails on Netty's global
    // executor: the outcome is always handled on this loop, which owns every field
    opening.addListener(
        done -> {
          if (loop.inEventLoop()) {
            opened(resolving, opened, done);
          } else {
            loop.execute(() -> opened(resolving, opened, done));
          }
        });
  }

  private void opened(Object resolving, Channel opened, Future<?> done) {
    if (attempt != resolving) {
      return;
    }
    if (!done.isSuccess()) {
      connectFailed(resolving, done.cause());
      return;
    }
    try {
      connected = true;
      List<byte[][]> waiting = new ArrayList<>(unsent);
      unsent.clear();
      for (byte[][] command : waiting) {
        write(opened, command);
      }
      opened.flush();
    } catch (Throwable t) {
      broken(t);
    }
  }

  private void connectFailed(Object failed, Throwable cause) {
    if (attempt == failed) {
      downUntil = System.nanoTime() + downNanos;
      broken(cause);
    }
  }

  /** The reply is late: the connection is out of step with its commands and is dropped. */
  private void late(PendingCommand pending) {
    if (inFlight.contains(pending)) {
      broken(
          new SocketTimeoutException(
              "no reply from Redis at "
                  + host
                  + ":"
                  + port
                  + " within "
                  + TimeUnit.NANOSECONDS.toMillis(readTimeoutNanos)
                  + "ms"));
    }
  }

  /** Drops the connection and fails every command in flight (their callers may send again). */
  private void broken(Throwable cause) {
    Channel old = channel;
    attempt = null;
    channel = null;
    connected = false;
    unsent.clear();
    unread = NO_BYTES;
    List<PendingCommand> failed = new ArrayList<>(inFlight);
    inFlight.clear();
    if (old != null && old.isOpen()) {
      ChannelFuture ignored = old.close();
    }
    IOException failure =
        cause instanceof IOException
            ? (IOException) cause
            : new IOException("Redis at " + host + ":" + port + ": " + cause, cause);
    for (PendingCommand pending : failed) {
      if (pending.timeout != null) {
        pending.timeout.cancel(false);
      }
      pending.reply.completeExceptionally(failure);
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext context, Object message) {
    byte[] bytes;
    ByteBuf received = (ByteBuf) message;
    try {
      if (channel == null || context.channel() != channel) {
        return;
      }
      bytes = Arrays.copyOf(unread, unread.length + received.readableBytes());
      received.readBytes(bytes, unread.length, received.readableBytes());
    } finally {
      received.release();
    }
    List<Object> replies = new ArrayList<>();
    ByteArrayInputStream in = new ByteArrayInputStream(bytes);
    RespDecoder decoder = new RespDecoder(in);
    unread = NO_BYTES;
    try {
      while (in.available() > 0) {
        int start = bytes.length - in.available();
        try {
          replies.add(decoder.next());
        } catch (EOFException incomplete) {
          unread = Arrays.copyOfRange(bytes, start, bytes.length);
          break;
        }
      }
    } catch (IOException malformed) {
      broken(malformed);
      return;
    }
    // completed after decoding: a completion may send the next command on this loop at once
    for (Object reply : replies) {
      PendingCommand pending = inFlight.poll();
      if (pending == null) {
        broken(new IOException("a reply from Redis that no command asked for"));
        return;
      }
      pending.timeout.cancel(false);
      pending.reply.complete(reply);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext context) {
    if (channel != null && context.channel() == channel) {
      broken(new EOFException("Redis closed the connection"));
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
    if (channel != null && context.channel() == channel) {
      broken(cause);
    } else {
      ChannelFuture ignored = context.close();
    }
  }

  /** Closes the connection; commands in flight fail. */
  public void close() {
    try {
      loop.execute(() -> broken(new IOException("the idempotency store was replaced")));
    } catch (RejectedExecutionException loopEnded) {
      // its connection ended with the loop
    }
  }

  private static void write(Channel channel, byte[][] command) {
    int size = 16;
    for (byte[] arg : command) {
      size += arg.length + 16;
    }
    ByteBuf out = channel.alloc().buffer(size);
    out.writeByte('*').writeBytes(ascii(command.length)).writeBytes(CRLF);
    for (byte[] arg : command) {
      out.writeByte('$').writeBytes(ascii(arg.length)).writeBytes(CRLF);
      out.writeBytes(arg).writeBytes(CRLF);
    }
    ChannelFuture ignored = channel.write(out, channel.voidPromise());
  }

  private static byte[] ascii(int number) {
    return Integer.toString(number).getBytes(StandardCharsets.US_ASCII);
  }
}
