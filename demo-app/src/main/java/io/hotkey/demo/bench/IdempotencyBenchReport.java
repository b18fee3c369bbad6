package io.hotkey.demo.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What {@link IdempotencyBench} concludes from its measurements: the checks that the measured work
 * was real, and the tables it prints.
 */
final class IdempotencyBenchReport {
  private IdempotencyBenchReport() {}

  static List<IdempotencyBench.Check> checks(
      Map<IdempotencyBench.Setup, IdempotencyBench.Result> results, long redisRecords) {
    List<IdempotencyBench.Check> checks = new ArrayList<>();
    for (IdempotencyBench.Result result : results.values()) {
      String setup = result.setup.label();
      long fresh = result.requests - result.retries;
      checks.add(
          new IdempotencyBench.Check(
              setup, "answered " + result.requests + " requests", result.requests > 0));
      checks.add(
          new IdempotencyBench.Check(
              setup,
              result.errors
                  + " errors"
                  + (result.firstError == null ? "" : " (first: " + result.firstError + ")"),
              result.errors == 0));
      if (!result.setup.hasAgent()) {
        checks.add(
            new IdempotencyBench.Check(
                setup,
                "handler ran " + result.handled + " times for " + result.requests + " requests",
                result.handled == result.requests));
        checks.add(
            new IdempotencyBench.Check(
                setup, result.replayed + " answers replayed", result.replayed == 0));
        checks.add(
            new IdempotencyBench.Check(
                setup, result.scriptCalls + " Redis script calls", result.scriptCalls == 0));
        checks.add(
            new IdempotencyBench.Check(
                setup,
                "resent orders: "
                    + result.probesReplayed
                    + " of "
                    + result.probes
                    + " replayed, handler ran "
                    + result.probeHandled
                    + " times",
                result.probes > 0
                    && result.probesReplayed == 0
                    && result.probeHandled == result.probes));
        if (result.setup == IdempotencyBench.Setup.PINGS) {
          long expected = (long) IdempotencyBench.REDIS_TARGET_ROUND_TRIPS * result.requests;
          checks.add(
              new IdempotencyBench.Check(
                  setup,
                  result.pings + " Redis PINGs for " + result.requests + " requests",
                  result.pings == expected));
        }
        continue;
      }
      checks.add(
          new IdempotencyBench.Check(
              setup,
              "handler ran " + result.handled + " times for " + fresh + " fresh keys",
              result.handled == fresh));
      checks.add(
          new IdempotencyBench.Check(
              setup,
              "agent executed "
                  + result.outcome("executed")
                  + ", stored "
                  + result.outcome("stored")
                  + ", replayed "
                  + result.outcome("replayed")
                  + " (fresh keys "
                  + fresh
                  + ", retries "
                  + result.retries
                  + ")",
              result.outcome("executed") == fresh
                  && result.outcome("stored") == fresh
                  && result.outcome("replayed") == result.retries));
      checks.add(
          new IdempotencyBench.Check(
              setup,
              result.replayed
                  + " answers with Idempotent-Replayed for "
                  + result.retries
                  + " retries",
              result.replayed == result.retries));
      if (result.setup == IdempotencyBench.Setup.REDIS) {
        // claim and complete for each fresh key, one claim (answered with the record) for each
        // replay
        checks.add(
            new IdempotencyBench.Check(
                setup,
                String.format(
                    "%d Redis script calls (%.2f per fresh key)",
                    result.scriptCalls, fresh == 0 ? 0.0 : (double) result.scriptCalls / fresh),
                result.scriptCalls >= 2 * fresh + result.retries));
        checks.add(
            new IdempotencyBench.Check(
                setup,
                redisRecords + " idempotency records in Redis after the run",
                redisRecords >= fresh));
      } else {
        checks.add(
            new IdempotencyBench.Check(
                setup, result.scriptCalls + " Redis script calls", result.scriptCalls == 0));
      }
      checks.add(
          new IdempotencyBench.Check(
              setup,
              "resent orders: "
                  + result.probesReplayed
                  + " of "
                  + result.probes
                  + " replayed, handler ran "
                  + result.probeHandled
                  + " times",
              result.probes > 0
                  && result.probesReplayed == result.probes
                  && result.probeHandled == 0));
    }
    return checks;
  }

  static void print(IdempotencyBench.Report report, PrintStream out) {
    out.println();
    out.println(
        "| configuration        |  requests |     req/s |    p50 µs |    p99 µs |  p99.9 µs |    max µs "
            + "| errors | replayed |");
    out.println(
        "|----------------------|----------:|----------:|----------:|----------:|----------:|----------:"
            + "|-------:|---------:|");
    for (IdempotencyBench.Result result : report.results().values()) {
      out.printf(
          "| %-20s | %9d | %9.0f | %9.1f | %9.1f | %9.1f | %9.0f | %6d | %8d |%n",
          result.setup.label(),
          result.requests,
          result.throughput(),
          result.percentileMicros(50),
          result.percentileMicros(99),
          result.percentileMicros(99.9),
          result.latencyNanos.getMaxValue() / 1e3,
          result.errors,
          result.replayed);
    }
    IdempotencyBench.Result base = report.results().get(IdempotencyBench.Setup.NO_AGENT);
    out.println();
    out.println(
        "| vs no agent          | throughput |  p50 added µs |  p99 added µs | p99.9 added µs |");
    out.println(
        "|----------------------|-----------:|--------------:|--------------:|---------------:|");
    for (IdempotencyBench.Result result : report.results().values()) {
      if (result != base) {
        out.printf(
            "| %-20s | %10s | %+13.1f | %+13.1f | %+14.1f |%n",
            result.setup.label(),
            base.throughput() == 0
                ? "-"
                : String.format("x%.2f", result.throughput() / base.throughput()),
            result.percentileMicros(50) - base.percentileMicros(50),
            result.percentileMicros(99) - base.percentileMicros(99),
            result.percentileMicros(99.9) - base.percentileMicros(99.9));
      }
    }
    out.printf(
        "measured %s%n",
        String.join(
            ", ",
            report.results().values().stream()
                .map(
                    result ->
                        String.format("%.1f s %s", result.elapsedNanos / 1e9, result.setup.label()))
                .toList()));
    double roundTrip = report.roundTripNanos().getValueAtPercentile(50) / 1e3;
    double memoryAdded = added(report, IdempotencyBench.Setup.MEMORY, base);
    double redisAdded = added(report, IdempotencyBench.Setup.REDIS, base);
    double roundTripsAdded = added(report, IdempotencyBench.Setup.PINGS, base);
    double redisTarget = roundTripsAdded + IdempotencyBench.REDIS_EXTRA_MICROS;
    out.println();
    out.printf(
        "Redis round trip (PING in a loop from this JVM after each redis slice): p50 %.1f µs, p99"
            + " %.1f µs; %d in the service's handler: %+.1f µs at p50%n",
        roundTrip,
        report.roundTripNanos().getValueAtPercentile(99) / 1e3,
        IdempotencyBench.REDIS_TARGET_ROUND_TRIPS,
        roundTripsAdded);
    out.printf(
        "targets at p50: memory store %+.1f µs (at most %+.1f: %s); redis store %+.1f µs (at most"
            + " the service's own %d round trips + %.0f = %+.1f: %s)%n",
        memoryAdded,
        IdempotencyBench.MEMORY_TARGET_MICROS,
        memoryAdded <= IdempotencyBench.MEMORY_TARGET_MICROS ? "met" : "missed",
        redisAdded,
        IdempotencyBench.REDIS_TARGET_ROUND_TRIPS,
        IdempotencyBench.REDIS_EXTRA_MICROS,
        redisTarget,
        redisAdded <= redisTarget ? "met" : "missed");
    out.println();
    out.println("checks (the measured work was real):");
    for (IdempotencyBench.Check check : report.checks()) {
      out.printf("  %s  %-20s %s%n", check.holds() ? "ok  " : "FAIL", check.setup(), check.what());
    }
  }

  /** What a setup adds to the median request of the service without the agent, in µs. */
  private static double added(
      IdempotencyBench.Report report, IdempotencyBench.Setup setup, IdempotencyBench.Result base) {
    return report.results().get(setup).percentileMicros(50) - base.percentileMicros(50);
  }
}
