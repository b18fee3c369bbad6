package io.hotkey.it;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/**
 * One stretch of {@code LiveLoadApp} services' reads: how many the agents answered locally (their
 * cache hits, summed) and the commands Redis answered meanwhile ({@code INFO commandstats}), so a
 * test tells what was served from where without timing anything.
 */
final class ReadSpan {
  private static final Duration LIMIT = Duration.ofSeconds(20);

  final long hits;
  final CommandStats commands;

  private ReadSpan(long hits, CommandStats commands) {
    this.hits = hits;
    this.commands = commands;
  }

  /** GETs Redis answered over the stretch. */
  long gets() {
    return commands.calls("get");
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
    long hits = hits(apps);
    CommandStats commands = redis.stats();
    long deadline = System.nanoTime() + LIMIT.toNanos();
    while (true) {
      ReadSpan span = new ReadSpan(hits(apps) - hits, redis.stats().minus(commands));
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

  private static long hits(List<LiveService> apps) throws IOException, InterruptedException {
    long hits = 0;
    for (LiveService app : apps) {
      hits += app.cacheFigure("hits");
    }
    return hits;
  }

  @Override
  public String toString() {
    return hits + " reads served locally, Redis answered " + commands;
  }
}
