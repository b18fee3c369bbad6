package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.LifecycleResults;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Lettuce connections that change who they are, are written to around {@code dispatch}, or
 * reconnect: AUTH to a less privileged ACL user through the sync, async and reactive APIs, SELECT,
 * a command written straight to the connection's {@code RedisChannelWriter}, a connection killed by
 * the server, one the application closed, and one whose channel Lettuce closed because a codec
 * threw while encoding (its next read waits for the reconnect); with {@code --closed-only} only the
 * closed connection. Each check reports its {@link LifecycleResults#OUTCOME}, {@code ok} or what
 * differed from what Redis itself answers; the test decides. Usage: {@code --redis host:port}.
 */
public final class LettuceLifecycleApp {
  private LettuceLifecycleApp() {}

  public static void main(String[] args) {
    AppArgs a = AppArgs.parse(args);
    String host = a.host();
    int port = a.port();
    RedisClient client = RedisClient.create(RedisURI.create(host, port));
    try {
      Child.runAndExit(
          () -> {
            if (a.has("closed-only")) {
              // under serve-stale-on-error, which answers reads whose connection lost its channel
              closed(client);
              return;
            }
            try (RawRedis raw = new RawRedis(host, port)) {
              raw.call("ACL", "SETUSER", "limited", "reset", "on", ">pw", "~cached:*", "+@all");
              raw.call("SET", "secret", "s3cret");
              afterAuth(
                  client,
                  "authSync",
                  c -> () -> c.sync().auth("limited", "pw"),
                  c -> () -> c.sync().get("secret"));
              afterAuth(
                  client,
                  "authAsync",
                  c -> () -> await(c.async().auth("limited", "pw")),
                  c -> () -> await(c.async().get("secret")));
              afterAuth(
                  client,
                  "authReactive",
                  c -> () -> c.reactive().auth("limited", "pw").block(),
                  c -> () -> c.reactive().get("secret").block());
              select(client, raw, host, port);
              directWrite(client);
              reconnect(client, raw);
              closed(client);
              encoderFailure(client);
            }
          },
          true);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static <T> T await(java.util.concurrent.Future<T> future) {
    try {
      return future.get(5, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof RuntimeException
          ? (RuntimeException) e.getCause()
          : new IllegalStateException(e.getCause());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void afterAuth(
      RedisClient client,
      String name,
      Function<StatefulRedisConnection<String, String>, Runnable> auth,
      Function<StatefulRedisConnection<String, String>, Supplier<String>> read) {
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      Supplier<String> get = read.apply(c);
      servedLocally(name, "secret", get);
      auth.apply(c).run();
      String outcome;
      try {
        outcome = "read " + get.get() + " where Redis answers NOPERM";
      } catch (RuntimeException e) {
        outcome =
            String.valueOf(e.getMessage()).contains("NOPERM") ? "ok" : "failed otherwise: " + e;
      }
      result(LifecycleResults.OUTCOME.of(name), outcome);
    }
  }

  /**
   * Warms {@code key} up through {@code read} and reports whether a further read was answered
   * locally: within a few hundred, as the tracking push of the case's own write may still drop the
   * entry once after the warm-up.
   */
  private static void servedLocally(String name, String key, Supplier<String> read) {
    Child.warmUp(LifecycleResults.warmUp(name), List.of(key), Child.reading(read), 8000, 3000);
    long before = hits();
    for (int reads = 0; reads < 500 && hits() == before; reads++) {
      Object unused = read.get();
    }
    result(LifecycleResults.SERVED_LOCALLY.of(name), hits() > before);
  }

  private static void select(RedisClient client, RawRedis raw, String host, int port) {
    raw.call("SET", "dbkey", "db0");
    try (RawRedis db1 = new RawRedis(host, port);
        StatefulRedisConnection<String, String> c = client.connect()) {
      db1.call("SELECT", "1");
      db1.call("SET", "dbkey", "db1");
      servedLocally("select", "dbkey", () -> c.sync().get("dbkey"));
      c.sync().select(1);
      String seen = c.sync().get("dbkey");
      result(
          LifecycleResults.OUTCOME.of("select"),
          "db1".equals(seen) ? "ok" : "read " + seen + " in db 1, Redis has db1");
    }
  }

  private static void directWrite(RedisClient client) {
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      c.sync().set("direct:k", "v0");
      servedLocally("directWrite", "direct:k", () -> c.sync().get("direct:k"));
      Command<String, String, String> set =
          new Command<>(
              CommandType.SET,
              new StatusOutput<>(StringCodec.UTF8),
              new CommandArgs<>(StringCodec.UTF8).addKey("direct:k").addValue("v1"));
      AsyncCommand<String, String, String> written = new AsyncCommand<>(set);
      ((RedisChannelHandler<?, ?>) c).getChannelWriter().write(written);
      await(written);
      String seen = c.sync().get("direct:k");
      result(
          LifecycleResults.OUTCOME.of("directWrite"),
          "v1".equals(seen) ? "ok" : "read " + seen + " after writing v1 around dispatch");
    }
  }

  private static void reconnect(RedisClient client, RawRedis raw) {
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      c.sync().set("reconnect:k", "v0");
      servedLocally("reconnect", "reconnect:k", () -> c.sync().get("reconnect:k"));
      raw.call("CLIENT", "KILL", "ID", String.valueOf(c.sync().clientId()));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (true) {
        try {
          c.sync().ping();
          break;
        } catch (RuntimeException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
        }
      }
      long before = hits();
      String seen = c.sync().get("reconnect:k");
      boolean local = hits() > before;
      result(
          LifecycleResults.OUTCOME.of("reconnect"),
          !local && "v0".equals(seen)
              ? "ok"
              : "first read after the reconnect: " + seen + (local ? ", answered locally" : ""));
    }
  }

  /**
   * A read on a connection the application closed fails as Lettuce fails it without the agent: as
   * the same read of a key nobody ever read (so never cached) fails on another closed connection.
   */
  private static void closed(RedisClient client) {
    StatefulRedisConnection<String, String> c = client.connect();
    c.sync().set("closed:k", "v0");
    servedLocally("closed", "closed:k", () -> c.sync().get("closed:k"));
    c.close();
    String failure = failureOf(() -> c.sync().get("closed:k"));
    StatefulRedisConnection<String, String> reference = client.connect();
    reference.close();
    String expected = failureOf(() -> reference.sync().get("closed:never-read"));
    result(
        LifecycleResults.OUTCOME.of("closed"),
        failure.equals(expected)
            ? "ok"
            : "read on the closed connection: " + failure + ", Lettuce itself: " + expected);
  }

  private static String failureOf(Supplier<String> read) {
    try {
      return "answered " + read.get();
    } catch (RuntimeException e) {
      return e.getClass().getName() + ": " + e.getMessage();
    }
  }

  /**
   * A codec that throws while a value is encoded makes Lettuce close the channel (the command's
   * {@code EncoderException} reaches the application first) and reconnect: the next read waits for
   * the new channel and is sent there, never answered from the cache meanwhile. Several rounds, as
   * the channel's closing and Lettuce's notice of it are a race. Only where Lettuce says it closes
   * the channel (6.8.2, 7.7): earlier versions leave it out of sync, and the case is not reported.
   */
  private static void encoderFailure(RedisClient client) {
    RedisCodec<String, String> failing =
        new RedisCodec<>() {
          @Override
          public String decodeKey(ByteBuffer bytes) {
            return StandardCharsets.UTF_8.decode(bytes).toString();
          }

          @Override
          public String decodeValue(ByteBuffer bytes) {
            return StandardCharsets.UTF_8.decode(bytes).toString();
          }

          @Override
          public ByteBuffer encodeKey(String key) {
            return StandardCharsets.UTF_8.encode(key);
          }

          @Override
          public ByteBuffer encodeValue(String value) {
            if ("encoding_failure".equals(value)) {
              throw new IllegalStateException("this value cannot be encoded");
            }
            return StandardCharsets.UTF_8.encode(value);
          }
        };
    if (encoderFailure(client, failing, "encoderFailure")) {
      // again with an application's command listener, whose writer wraps the endpoint's
      client.addListener(new CommandListener() {});
      encoderFailure(client, failing, "encoderFailureListened");
    }
  }

  /** The rounds on a new connection; false where this Lettuce does not close the channel. */
  private static boolean encoderFailure(
      RedisClient client, RedisCodec<String, String> failing, String name) {
    String outcome = "ok";
    try (StatefulRedisConnection<String, String> c = client.connect(failing)) {
      c.sync().set("encoder:k", "v0");
      servedLocally(name, "encoder:k", () -> c.sync().get("encoder:k"));
      for (int round = 0; round < 5 && outcome.equals("ok"); round++) {
        if (round > 0 && !servedAgain(() -> c.sync().get("encoder:k"))) {
          outcome = "round " + round + ": the key was not served again after the reconnect";
          break;
        }
        String failure = failureOf(() -> c.sync().set("encoder:failing", "encoding_failure"));
        if (!failure.contains("Closing the connection")) {
          // 6.8.1 and 7.0-7.6 keep the channel, out of sync: their next command hangs, agent or not
          return false;
        }
        long before = hits();
        String seen = c.sync().get("encoder:k");
        boolean local = hits() > before;
        if (!failure.contains("EncoderException") || local || !"v0".equals(seen)) {
          outcome =
              "round "
                  + round
                  + ": the failing SET gave "
                  + failure
                  + ", the next read "
                  + seen
                  + (local ? ", answered locally before the reconnect" : "");
        }
      }
    }
    result(LifecycleResults.OUTCOME.of(name), outcome);
    return true;
  }

  /**
   * Reads until a read is answered locally; false if none is within 10 s (a loaded machine may take
   * that long to reconnect and fill the entry again).
   */
  private static boolean servedAgain(Supplier<String> read) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      long before = hits();
      Object unused = read.get();
      if (hits() > before) {
        return true;
      }
    }
    return false;
  }

  private static long hits() {
    Object hits = Child.jmx("CacheHits");
    return hits instanceof Long l ? l : -1;
  }
}
