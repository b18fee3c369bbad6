package io.hotkey.it;

import static io.hotkey.it.LiveService.HOT;
import static io.hotkey.it.LiveService.MARKUP_KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The live page in a real headless Chromium against an application under load: it shows the key the
 * load made hot and its rate, which rises when the load does, and its hits and misses; a key that
 * is markup stays text; the page's script ran (it counts its updates). The screenshot is kept as
 * {@code target/live-page.png}.
 */
class LivePageIT extends RedisTestBase {
  private static final Pattern ROW_RATE =
      Pattern.compile("<tr data-key=\"" + Pattern.quote(HOT) + "\" data-rate=\"([0-9.]+)\">");
  private static final Pattern UPDATES = Pattern.compile("data-updates=\"(\\d+)\"");

  /** The hot key's row: its hit ratio (group 1), hits (2) and misses (3). */
  private static final Pattern ROW_READS =
      Pattern.compile(
          "<tr data-key=\""
              + Pattern.quote(HOT)
              + "\"[^>]*>.*?<td class=\"num hit-ratio\">([0-9.]+) %</td>"
              + "<td class=\"num hits\">([0-9,]+) / ([0-9,]+)</td>");

  @Test
  void thePageShowsTheHotKeyAndItsRisingRateAndKeepsMarkupAsText() throws Exception {
    try (LiveService app = LiveService.start(LiveService.app(redis).name("live-page"))) {
      app.load(HOT, 400);
      app.load(MARKUP_KEY, 300);
      app.awaitHot(HOT, 300);
      app.awaitHot(MARKUP_KEY, 200);
      String before = HeadlessChromium.dumpDom(app.endpoint());
      double slow = rate(before);

      app.load(HOT, 1600);
      app.awaitHot(HOT, 1200);
      String after = HeadlessChromium.dumpDom(app.endpoint());
      double fast = rate(after);
      Path screenshot = ItConfig.workDir().resolveSibling("live-page.png");
      HeadlessChromium.screenshot(app.endpoint(), screenshot);

      assertTrue(updates(before) >= 2, () -> "the page's script did not poll:\n" + before);
      assertTrue(slow > 250 && slow < 700, () -> "rate shown at 400/s: " + slow);
      assertTrue(fast > 2 * slow, () -> "rate shown did not rise: " + slow + " then " + fast);
      assertTrue(
          after.contains("data-key=\"" + HOT + "\"") && after.contains("class=\"series\""),
          () -> "no chart line for " + HOT + ":\n" + after);
      Matcher reads = ROW_READS.matcher(after);
      assertTrue(reads.find(), () -> "no hit ratio, hits and misses for " + HOT + ":\n" + after);
      long hits = Long.parseLong(reads.group(2).replace(",", ""));
      long misses = Long.parseLong(reads.group(3).replace(",", ""));
      double shownRatio = Double.parseDouble(reads.group(1));
      assertTrue(hits > 0 && misses >= 1, () -> "hits " + hits + ", misses " + misses);
      assertEquals(100.0 * hits / (hits + misses), shownRatio, 0.05 + 1e-9, "hit ratio shown");
      assertTrue(
          after.contains(">&lt;img src=x onerror=alert(1)&gt;<"),
          () -> "the markup key is not shown as text:\n" + after);
      assertFalse(after.contains("<img"), () -> "the markup key became an element:\n" + after);
      assertTrue(after.contains("live ·"), () -> "connection badge:\n" + after);
      assertTrue(
          Files.size(screenshot) > 10_000, () -> "screenshot " + screenshot + " is nearly empty");
      System.out.println("[it] live page screenshot: " + screenshot);
    }
  }

  private static double rate(String dom) {
    Matcher m = ROW_RATE.matcher(dom);
    if (!m.find()) {
      throw new AssertionError("no row for " + HOT + " in the page:\n" + dom);
    }
    return Double.parseDouble(m.group(1));
  }

  private static int updates(String dom) {
    Matcher m = UPDATES.matcher(dom);
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }
}
