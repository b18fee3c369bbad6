package io.hotkey.it;

import com.google.gson.JsonObject;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/**
 * One stretch of {@code LiveLoadApp} services' reads: how many the agents answered locally (their
 * cache hits, summed), how many hot-key reads they sent to Redis only because their tracking
 * connection was overdue, and the commands Redis answered meanwhile ({@code INFO commandstats}), so
 * a test tells what was served from where without timing anything.
 */
final class ReadSpan {
  private static final Duration LIMIT = Duration.ofSeconds(20);

  final long hits;
  final long bypassed;
  final CommandStats commands;

  private ReadSpan(Figures figures, CommandStats commands) {
    this.hits = figures.hits;
    this.bypassed = figures.bypassed;
    this.commands = commands;
  }

  /** GETs Redis answered over the stretch. */
  long gets() {
    return commands.calls("get");
  }

  /**
   * GETs Redis answered because the local entry was missing or expired: every GET but those a busy
   * machine's overdue tracking connection sent there.
   */
  long fills() {
    return gets() - bypassed;
  }

  /** Until Redis has answered {@code gets} more GETs; fails after 20 s. */
  static ReadSpan untilGets(RedisServer redis, List<LiveService> apps, long gets)
      throws IOException, InterruptedException {
    return until(redis, apps, s -> s.gets() >= gets, "Redis answered " + gets + " GETs");
  }

  /** Until the agents have answered {@code hits} more reads; fails after 20 s. */
  static ReadSpan untilHits(RedisServer redis, List<LiveService> apps, long hits)
      throws IOException, InterruptedException {
    return until(redis, apps, s -> s.hits >= hits, hits + " reads served locally");
  }

  private static ReadSpan until(
      RedisServer redis, List<LiveService> apps, Predicate<ReadSpan> done, String what)
      throws IOException, InterruptedException {
    Figures start = Figures.of(apps);
    CommandStats commands = redis.stats();
    long deadline = System.nanoTime() + LIMIT.toNanos();
    while (true) {
      ReadSpan span = new ReadSpan(Figures.of(apps).minus(start), redis.stats().minus(commands));
      if (done.test(span)) {
        System.out.println("[it] until " + what + ": " + span);
        return span;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within " + LIMIT.toSeconds() + " s: " + what + "; " + span);
      }
      Thread.sleep(100);
    }
  }

  /** The agents' counters, summed over the services. */
  private static final class Figures {
    final long hits;
    final long bypassed;

    Figures(long hits, long bypassed) {
      this.hits = hits;
      this.bypassed = bypassed;
    }

    static Figures of(List<LiveService> apps) throws IOException, InterruptedException {
      long hits = 0;
      long bypassed = 0;
      for (LiveService app : apps) {
        JsonObject report = app.report();
        hits += report.getAsJsonObject("cache").get("hits").getAsLong();
        bypassed += report.getAsJsonObject("tracking").get("bypassed").getAsLong();
      }
      return new Figures(hits, bypassed);
    }

    Figures minus(Figures start) {
      return new Figures(hits - start.hits, bypassed - start.bypassed);
    }
  }

  @Override
  public String toString() {
    return hits
        + " reads served locally, "
        + bypassed
        + " sent past an overdue tracking connection, Redis answered "
        + commands;
  }
}
