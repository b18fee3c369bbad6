package io.hotkey.agent.cli;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The agent's report as text: what {@code status} prints once and {@code top} every second. */
final class StatusView {
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

  private StatusView() {}

  /**
   * @param width the terminal's columns: longer keys are cut to fit; 0 never cuts
   * @param maxKeys at most this many hot keys, highest rate first
   * @param withConfig whether to list the configuration
   */
  static List<String> render(ReportDocument report, int width, int maxKeys, boolean withConfig) {
    List<String> lines = new ArrayList<>();
    ReportDocument agent = report.object("agent");
    ReportDocument commands = report.object("commands");
    ReportDocument cache = report.object("cache");
    ReportDocument redis = report.object("redis");
    ReportDocument detector = report.object("detector");
    ReportDocument tracking = report.object("tracking");
    long now = (long) agent.number("time");
    lines.add(
        "Hotkey Agent "
            + agent.text("version")
            + " in JVM "
            + (long) agent.number("pid")
            + ", up "
            + duration(now - (long) agent.number("startedAt"))
            + ", scope "
            + report.text("scope")
            + ", freshness "
            + tracking.text("mode")
            + " "
            + duration((long) tracking.number("ttlMillis")));
    lines.add(
        "commands  "
            + perSecond(commands, "readsPerSecond")
            + " reads, "
            + perSecond(commands, "writesPerSecond")
            + " writes ("
            + count(commands.number("reads"))
            + " and "
            + count(commands.number("writes"))
            + " since start)");
    lines.add(
        "redis     "
            + perSecond(redis, "savedPerSecond")
            + " commands saved ("
            + count(redis.number("saved"))
            + " since start)");
    lines.add(
        "cache     "
            + (cache.flag("enabled")
                ? count(cache.number("entries"))
                    + " entries, "
                    + bytes(cache.number("bytes"))
                    + " of "
                    + bytes(cache.number("maxBytes"))
                    + ", hit ratio "
                    + (cache.hasNumber("hitRatio") ? percent(cache.number("hitRatio")) : "-")
                    + ", "
                    + count(cache.number("hits"))
                    + " hits, "
                    + count(cache.number("misses"))
                    + " misses, "
                    + count(cache.number("evictions"))
                    + " evictions"
                : "off (hotkey.cache.enabled=false)"));
    for (String module : report.texts("instrumentation")) {
      lines.add("clients   " + module);
    }
    List<String> servers = tracking.texts("servers");
    if (!servers.isEmpty()) {
      lines.add(
          "tracking  "
              + terminalSafe(String.join(", ", servers))
              + ", "
              + count(tracking.number("invalidations"))
              + " keys invalidated");
    }
    List<ReportDocument> hotKeys = report.objects("hotKeys");
    lines.add(
        "hot keys  "
            + hotKeys.size()
            + " (threshold "
            + count(detector.number("threshold"))
            + "/s, top "
            + count(detector.number("topK"))
            + "), agent errors "
            + count(report.number("agentErrors")));
    lines.add("");
    lines.addAll(hotKeyTable(hotKeys, now, width, maxKeys));
    ReportDocument idempotency = report.object("idempotency");
    if (idempotency.flag("enabled")) {
      ReportDocument outcomes = idempotency.object("outcomes");
      StringBuilder line = new StringBuilder("idempotency");
      for (String outcome : outcomes.names()) {
        line.append(line.length() == "idempotency".length() ? "  " : ", ")
            .append(outcome.replace('_', ' '))
            .append(' ')
            .append(count(outcomes.number(outcome)));
      }
      lines.add("");
      lines.add(line.toString());
    }
    if (withConfig) {
      lines.add("");
      lines.add("configuration");
      for (ReportDocument entry : report.objects("config")) {
        String value = entry.text("value");
        lines.add(
            "  "
                + terminalSafe(entry.text("key"))
                + " = "
                + terminalSafe(value.isEmpty() ? "\"\"" : value)
                + "  ("
                + terminalSafe(entry.text("source"))
                + ")");
      }
    }
    return lines;
  }

  private static List<String> hotKeyTable(
      List<ReportDocument> hotKeys, long now, int width, int maxKeys) {
    List<String> lines = new ArrayList<>();
    if (hotKeys.isEmpty()) {
      lines.add("no key is hot");
      return lines;
    }
    int keyWidth = 3;
    for (ReportDocument key : hotKeys) {
      keyWidth = Math.max(keyWidth, terminalSafe(key.text("key")).length());
    }
    int fixed = 10 + 6 + 5 + 11 + 9 + 6 + 9 + 22 + 8;
    if (width > 0) {
      keyWidth = Math.max(12, Math.min(keyWidth, width - fixed));
    }
    String row = "%-" + keyWidth + "s %10s %6s %5s %11s %9s %-6s %-9s %s";
    lines.add(
        String.format(
            row,
            "KEY",
            "RATE/S",
            "READS",
            "HIT%",
            "HITS",
            "MISSES",
            "SCOPE",
            "WRITE-HOT",
            "HOT SINCE"));
    int shown = 0;
    boolean anyWriteHot = false;
    for (ReportDocument key : hotKeys) {
      anyWriteHot |= key.flag("writeHot");
      if (shown++ == maxKeys) {
        lines.add("... " + (hotKeys.size() - maxKeys) + " more");
        break;
      }
      String since =
          key.hasNumber("promotedAt")
              ? CLOCK.format(Instant.ofEpochMilli((long) key.number("promotedAt")))
                  + " ("
                  + duration(now - (long) key.number("promotedAt"))
                  + ")"
              : "-";
      lines.add(
          String.format(
              row,
              cut(terminalSafe(key.text("key")), keyWidth),
              count(key.number("rate")),
              percent(key.number("readShare")),
              key.hasNumber("hitRatio") ? percent(key.number("hitRatio")) : "-",
              key.hasNumber("hits") ? count(key.number("hits")) : "-",
              key.hasNumber("misses") ? count(key.number("misses")) : "-",
              terminalSafe(key.text("scope")),
              key.flag("writeHot") ? "yes" : "",
              since));
    }
    lines.add("hits: reads answered locally since the key became hot; misses: reads sent to Redis");
    if (anyWriteHot) {
      lines.add(
          "write-hot: never served locally; consider splitting it (N sub-keys, writes routed by"
              + " hash, reads summed)");
    }
    return lines;
  }

  private static String cut(String text, int width) {
    return text.length() <= width ? text : text.substring(0, width - 3) + "...";
  }

  /**
   * Keys are user data: the agent prints them escaped already, and whatever else arrives never
   * reaches the terminal as a control sequence.
   */
  static String terminalSafe(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(c < 0x20 || (c >= 0x7f && c < 0xa0) ? '?' : c);
    }
    return out.toString();
  }

  private static String perSecond(ReportDocument object, String name) {
    return object.hasNumber(name) ? count(object.number(name)) + "/s" : "-/s";
  }

  private static String count(double value) {
    return String.format(Locale.ROOT, "%,d", Math.round(value));
  }

  private static String percent(double ratio) {
    return String.format(Locale.ROOT, "%.0f%%", 100 * ratio);
  }

  private static String bytes(double count) {
    String[] units = {"B", "KB", "MB", "GB"};
    double value = count;
    int unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return unit == 0
        ? Math.round(value) + " B"
        : String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }

  static String duration(long millis) {
    long seconds = Math.max(0, Math.round(millis / 1000.0));
    if (seconds < 60) {
      return seconds + "s";
    }
    long minutes = seconds / 60;
    if (minutes < 60) {
      return minutes + "m " + seconds % 60 + "s";
    }
    return minutes / 60 + "h " + minutes % 60 + "m";
  }
}
