package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.hotkey.it.VersionMatrix.Client;
import io.hotkey.it.VersionMatrix.Line;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The compatibility table ({@code docs/compatibility.md}) claims exactly the Redis client lines
 * {@link VersionMatrixIT} runs, and names as tested exactly the releases it runs. A row's versions
 * cell reads {@code 4.0–4.4, 8.0 (tested 4.0.0, 4.0.1, …, 8.0.2)…}: minor lines, single or as a
 * range within one major, then the releases (Lettuce's without {@code .RELEASE}).
 */
class CompatibilityTableTest {
  private static final Path TABLE = Path.of("..", "docs", "compatibility.md");

  /** A table row whose first cell is a client's name: its versions cell. */
  private static final Pattern ROW = Pattern.compile("^\\| (Jedis|Lettuce) \\| ([^|]*) \\|");

  private static final Pattern CLAIM = Pattern.compile("^(.*?) \\(tested ([^)]*)\\)");

  @Test
  void theTableClaimsWhatTheMatrixRuns() throws IOException {
    assertEquals(List.of(), problems(Files.readString(TABLE)));
  }

  @Test
  void aClaimedLineWithoutAMatrixEntryIsCaught() throws IOException {
    String table = Files.readString(TABLE).replace("8.0 (tested", "8.0, 8.1 (tested");
    assertFalse(problems(table).isEmpty(), "Jedis 8.1 claimed, never run, and not caught");
  }

  @Test
  void aRunReleaseTheReadmeDoesNotNameIsCaught() throws IOException {
    String table = Files.readString(TABLE).replace(", 4.0.1,", ",");
    assertFalse(problems(table).isEmpty(), "Jedis 4.0.1 run, not named, and not caught");
  }

  /** What the table claims and the matrix does not run, or the reverse; empty when they agree. */
  static List<String> problems(String table) {
    List<String> problems = new ArrayList<>();
    for (Client client : Client.values()) {
      Set<String> claimedLines = new TreeSet<>();
      int rows = 0;
      for (String row : table.lines().toList()) {
        Matcher r = ROW.matcher(row);
        if (!r.find() || !r.group(1).equals(client.readmeName)) {
          continue;
        }
        rows++;
        Matcher claim = CLAIM.matcher(r.group(2));
        if (!claim.find()) {
          problems.add(client.readmeName + " row names no tested releases: " + r.group(2));
          continue;
        }
        Set<String> lines = lines(claim.group(1));
        claimedLines.addAll(lines);
        Set<String> ran = new LinkedHashSet<>();
        Set<String> modules = new TreeSet<>();
        for (Line line : VersionMatrix.LINES) {
          if (line.client() == client && lines.contains(line.line())) {
            line.releases().forEach(release -> ran.add(release.replace(".RELEASE", "")));
            modules.add(line.module());
          }
        }
        List<String> named = List.of(claim.group(2).split(",\\s*"));
        if (!List.copyOf(ran).equals(named)) {
          problems.add(
              client.readmeName + " " + lines + ": the table names " + named + ", ran " + ran);
        }
        if (modules.size() > 1) {
          problems.add(client.readmeName + " row claims lines of modules " + modules);
        }
      }
      if (rows == 0) {
        problems.add("no " + client.readmeName + " row");
      }
      Set<String> matrixLines = VersionMatrix.lineNames(client);
      if (!claimedLines.equals(matrixLines)) {
        problems.add(
            client.readmeName + " lines claimed " + claimedLines + ", matrix runs " + matrixLines);
      }
    }
    return problems;
  }

  /** {@code 4.0–4.4, 8.0} as {@code [4.0, 4.1, 4.2, 4.3, 4.4, 8.0]}. */
  private static Set<String> lines(String claimed) {
    Set<String> lines = new TreeSet<>();
    for (String part : claimed.split(",\\s*")) {
      String[] range = part.trim().split("–");
      String[] from = range[0].split("\\.");
      String[] to = range[range.length - 1].split("\\.");
      if (!from[0].equals(to[0])) {
        lines.add("a range across majors: " + part);
        continue;
      }
      for (int minor = Integer.parseInt(from[1]); minor <= Integer.parseInt(to[1]); minor++) {
        lines.add(from[0] + "." + minor);
      }
    }
    return lines;
  }
}
