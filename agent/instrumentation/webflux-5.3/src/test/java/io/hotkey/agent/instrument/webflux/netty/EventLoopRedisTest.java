package io.hotkey.agent.instrument.webflux.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.testing.RedisPerClass;
import io.netty.channel.EventLoop;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An event loop's connection to a real Redis over a real Netty loop: pipelined replies in order, on
 * the loop, a reply larger than any read, a dropped connection made again, a Redis gone answered at
 * once rather than waited for.
 */
class EventLoopRedisTest {
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();
  private NioEventLoopGroup group;
  private ExecutorService blocking;
  private EventLoop loop;
  private EventLoopRedis connection;

  @BeforeEach
  void connect() {
    group = new NioEventLoopGroup(1);
    blocking = Executors.newSingleThreadExecutor();
    loop = group.next();
    connection =
        new EventLoopRedis(
            loop, NioSocketChannel.class, "127.0.0.1", redis.port(), 1000, 2000, 50, blocking);
  }

  @AfterEach
  void stop() throws Exception {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await();
    blocking.shutdownNow();
  }

  private static byte[][] command(String... words) {
    byte[][] command = new byte[words.length][];
    for (int i = 0; i < words.length; i++) {
      command[i] = words[i].getBytes(StandardCharsets.UTF_8);
    }
    return command;
  }

  private static Object reply(CompletionStage<Object> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void pipelinedRepliesArriveInOrderOnTheLoop() throws Exception {
    List<CompletableFuture<Object>> replies = new ArrayList<>();
    List<Boolean> onLoop = new ArrayList<>();
    loop.submit(
            () -> {
              for (int i = 0; i < 200; i++) {
                replies.add(
                    connection
                        .send(command("ECHO", "m" + i))
                        .toCompletableFuture()
                        .thenApply(
                            reply -> {
                              onLoop.add(loop.inEventLoop());
                              return reply;
                            }));
              }
            })
        .get(10, TimeUnit.SECONDS);
    for (int i = 0; i < 200; i++) {
      assertArrayEquals(
          ("m" + i).getBytes(StandardCharsets.UTF_8),
          (byte[]) replies.get(i).get(10, TimeUnit.SECONDS));
    }
    loop.submit(() -> assertEquals(List.of(true), onLoop.stream().distinct().toList()))
        .get(10, TimeUnit.SECONDS);
  }

  @Test
  void aHostNameIsResolvedOffTheLoopAndAnAddressOnIt() throws Exception {
    AtomicInteger resolutions = new AtomicInteger();
    Executor counting =
        task -> {
          resolutions.incrementAndGet();
          blocking.execute(task);
        };
    EventLoopRedis byName =
        new EventLoopRedis(
            loop, NioSocketChannel.class, "localhost", redis.port(), 1000, 2000, 50, counting);
    assertEquals("PONG", reply(byName.send(command("PING"))));
    assertEquals(1, resolutions.get(), "the host name was resolved on the blocking executor");
    EventLoopRedis byAddress =
        new EventLoopRedis(
            loop, NioSocketChannel.class, "127.0.0.1", redis.port(), 1000, 2000, 50, counting);
    assertEquals("PONG", reply(byAddress.send(command("PING"))));
    assertEquals(1, resolutions.get(), "an address needs no resolving");
  }

  @Test
  void aReplyLargerThanAnyReadArrivesWhole() throws Exception {
    byte[] big = new byte[3 * 1024 * 1024 + 7];
    Arrays.fill(big, (byte) '\r');
    byte[][] set = {bytes("SET"), bytes("big"), big};
    assertEquals("OK", reply(connection.send(set)));
    assertArrayEquals(big, (byte[]) reply(connection.send(command("GET", "big"))));
  }

  @Test
  void aDroppedConnectionIsMadeAgain() throws Exception {
    assertEquals("PONG", reply(connection.send(command("PING"))));
    try (io.hotkey.agent.redis.resp.RespConnection admin =
        new io.hotkey.agent.redis.resp.RespConnection(
            io.hotkey.agent.redis.resp.RedisEndpoint.of("127.0.0.1", redis.port()), 1000, 1000)) {
      admin.call(command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try {
        assertEquals("PONG", reply(connection.send(command("PING"))));
        return;
      } catch (ExecutionException dropped) {
        assertInstanceOf(IOException.class, dropped.getCause());
        assertTrue(System.nanoTime() < deadline, "never connected again");
      }
    }
  }

  @Test
  void aRedisGoneFailsCommandsAtOnce() throws Exception {
    assertEquals("PONG", reply(connection.send(command("PING"))));
    redis.process().kill();
    try {
      ExecutionException failed =
          assertThrows(ExecutionException.class, () -> reply(connection.send(command("PING"))));
      assertInstanceOf(IOException.class, failed.getCause());
      long start = System.nanoTime();
      ExecutionException refused =
          assertThrows(ExecutionException.class, () -> reply(connection.send(command("PING"))));
      assertInstanceOf(IOException.class, refused.getCause());
      assertTrue(
          System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2),
          "a refused connection is not waited for");
    } finally {
      redis.process().restart();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try {
        assertEquals("PONG", reply(connection.send(command("PING"))));
        return;
      } catch (ExecutionException down) {
        assertTrue(System.nanoTime() < deadline, "never connected after Redis came back");
        Thread.sleep(20);
      }
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
