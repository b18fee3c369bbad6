package io.hotkey.it;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Every minor release line each client module claims, with the oldest and newest release of the
 * line that the smoke scenario ({@code VersionMatrixIT}) and the reference check ({@code
 * HookReferencesIT}) run, and the release whose runtime dependencies (copied beside it by
 * maven-dependency-plugin) the line's releases run with. The compatibility table
 * (docs/compatibility.md) must claim exactly these lines and releases ({@code
 * CompatibilityTableTest}).
 */
final class VersionMatrix {
  /** The Redis clients with a module per version line. */
  enum Client {
    JEDIS("jedis", "Jedis"),
    LETTUCE("lettuce", "Lettuce");

    final String folder;
    final String readmeName;

    Client(String folder, String readmeName) {
      this.folder = folder;
      this.readmeName = readmeName;
    }
  }

  /**
   * One minor line ({@code 4.2}) of a client, claimed by the agent's module {@code module}.
   *
   * @param dependenciesOf a release of the same major line whose client folder holds the runtime
   *     dependencies too: a release's folder with only the client jar borrows them from there
   */
  record Line(
      Client client, String module, String line, List<String> releases, String dependenciesOf) {}

  static final String JEDIS_3 = "jedis-3";
  static final String JEDIS_4 = "jedis-4+";
  static final String LETTUCE_5 = "lettuce-5";
  static final String LETTUCE_6 = "lettuce-6+";

  static final List<Line> LINES =
      List.of(
          jedis3("3.0", "3.0.0", "3.0.1"),
          jedis3("3.1", "3.1.0"),
          jedis3("3.2", "3.2.0"),
          jedis3("3.3", "3.3.0"),
          jedis3("3.4", "3.4.0", "3.4.1"),
          jedis3("3.5", "3.5.0", "3.5.2"),
          jedis3("3.6", "3.6.0", "3.6.3"),
          jedis3("3.7", "3.7.0", "3.7.1"),
          jedis3("3.8", "3.8.0"),
          jedis3("3.9", "3.9.0"),
          jedis3("3.10", "3.10.0"),
          jedis("4.0", "4.4.8", "4.0.0", "4.0.1"),
          jedis("4.1", "4.4.8", "4.1.0", "4.1.1"),
          jedis("4.2", "4.4.8", "4.2.0", "4.2.3"),
          jedis("4.3", "4.4.8", "4.3.0", "4.3.2"),
          jedis("4.4", "4.4.8", "4.4.0", "4.4.8"),
          jedis("5.0", "5.2.0", "5.0.0", "5.0.2"),
          jedis("5.1", "5.2.0", "5.1.0", "5.1.5"),
          jedis("5.2", "5.2.0", "5.2.0"),
          jedis("6.0", "6.2.0", "6.0.0"),
          jedis("6.1", "6.2.0", "6.1.0"),
          jedis("6.2", "6.2.0", "6.2.0"),
          jedis("7.0", "7.2.0", "7.0.0"),
          jedis("7.1", "7.2.0", "7.1.0"),
          jedis("7.2", "7.2.0", "7.2.0", "7.2.1"),
          jedis("7.3", "7.2.0", "7.3.0"),
          jedis("7.4", "7.2.0", "7.4.0", "7.4.1"),
          jedis("7.5", "7.2.0", "7.5.0", "7.5.3"),
          jedis("8.0", "8.0.2", "8.0.0", "8.0.2"),
          lettuce5("5.0", "5.0.0", "5.0.5"),
          lettuce5("5.1", "5.1.0", "5.1.8"),
          lettuce5("5.2", "5.2.0", "5.2.2"),
          lettuce5("5.3", "5.3.0", "5.3.7"),
          lettuce("6.0", "6.8.1", "6.0.0", "6.0.9"),
          lettuce("6.1", "6.8.1", "6.1.0", "6.1.10"),
          lettuce("6.2", "6.8.1", "6.2.0", "6.2.7"),
          lettuce("6.3", "6.8.1", "6.3.0", "6.3.2"),
          lettuce("6.4", "6.8.1", "6.4.0", "6.4.2"),
          lettuce("6.5", "6.8.1", "6.5.0", "6.5.5"),
          lettuce("6.6", "6.8.1", "6.6.0"),
          lettuce("6.7", "6.8.1", "6.7.0", "6.7.1"),
          lettuce("6.8", "6.8.1", "6.8.0", "6.8.2"),
          lettuce("7.0", "7.7.0", "7.0.0", "7.0.3"),
          lettuce("7.1", "7.7.0", "7.1.0", "7.1.3"),
          lettuce("7.2", "7.7.0", "7.2.0", "7.2.3"),
          lettuce("7.3", "7.7.0", "7.3.0", "7.3.2"),
          lettuce("7.4", "7.7.0", "7.4.0", "7.4.2"),
          lettuce("7.5", "7.7.0", "7.5.0", "7.5.2"),
          lettuce("7.6", "7.7.0", "7.6.0"),
          lettuce("7.7", "7.7.0", "7.7.0"));

  private VersionMatrix() {}

  /** Every release of {@code module}'s lines, oldest first. */
  static List<String> releases(String module) {
    return LINES.stream()
        .filter(l -> l.module().equals(module))
        .flatMap(l -> l.releases().stream())
        .toList();
  }

  static Set<String> lineNames(Client client) {
    TreeSet<String> names = new TreeSet<>();
    LINES.stream().filter(l -> l.client() == client).forEach(l -> names.add(l.line()));
    return names;
  }

  private static Line jedis3(String line, String... releases) {
    return new Line(Client.JEDIS, JEDIS_3, line, List.of(releases), null);
  }

  private static Line jedis(String line, String dependenciesOf, String... releases) {
    return new Line(Client.JEDIS, JEDIS_4, line, List.of(releases), dependenciesOf);
  }

  private static Line lettuce5(String line, String... releases) {
    return new Line(
        Client.LETTUCE,
        LETTUCE_5,
        line,
        Stream.of(releases).map(r -> r + ".RELEASE").toList(),
        null);
  }

  private static Line lettuce(String line, String dependenciesOf, String... releases) {
    return new Line(
        Client.LETTUCE,
        LETTUCE_6,
        line,
        Stream.of(releases).map(r -> r + ".RELEASE").toList(),
        dependenciesOf + ".RELEASE");
  }
}
