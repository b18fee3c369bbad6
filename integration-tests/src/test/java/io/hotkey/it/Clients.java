package io.hotkey.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Child classpaths: the scenario apps (target/classes) plus one Jedis version and its runtime deps.
 */
public final class Clients {
  public static final String JEDIS_3 = "3.10.0";
  public static final String JEDIS_4 = "4.4.8";
  public static final String JEDIS_5 = "5.2.0";
  public static final String JEDIS_6 = "6.2.0";
  public static final String JEDIS_7 = "7.2.0";
  public static final String JEDIS_8 = "8.0.2";

  /** The oldest and newest release of every Jedis 3 minor line. */
  public static final List<String> JEDIS_3_MATRIX = VersionMatrix.releases(VersionMatrix.JEDIS_3);

  /** Versions whose hook point (Connection.executeCommand) supports local serving. */
  public static final List<String> MODERN = List.of(JEDIS_4, JEDIS_5, JEDIS_6, JEDIS_7, JEDIS_8);

  public static final List<String> ALL =
      List.of(JEDIS_3, JEDIS_4, JEDIS_5, JEDIS_6, JEDIS_7, JEDIS_8);

  /** The newest Lettuce 5 release. */
  public static final String LETTUCE_5 = "5.3.7.RELEASE";

  /** The oldest and newest release of every Lettuce 5 minor line. */
  public static final List<String> LETTUCE_5_MATRIX =
      VersionMatrix.releases(VersionMatrix.LETTUCE_5);

  /**
   * The last Lettuce line whose {@code ConnectionState} keeps the login itself, before credentials
   * providers (6.2): only {@code LettuceLoginIT} runs it.
   */
  public static final String LETTUCE_6_1 = "6.1.10.RELEASE";

  public static final String LETTUCE_6 = "6.8.1.RELEASE";
  public static final String LETTUCE_7 = "7.7.0.RELEASE";
  public static final List<String> LETTUCE = List.of(LETTUCE_6, LETTUCE_7);

  /**
   * The Spring lines whose spring-web (with its Reactor) the WebFlux helpers are checked against.
   */
  public static final List<String> SPRING_WEB = List.of("5.3.31", "6.2.12", "7.0.8");

  private Clients() {}

  /** The newest release's classpath of {@code client}: {@code jedis} or {@code lettuce}. */
  public static String newestClasspath(String client) {
    return client.equals("lettuce") ? lettuceClasspath(LETTUCE_6) : jedisClasspath(JEDIS_8);
  }

  public static String jedisClasspath(String version) {
    return classpath("jedis", version);
  }

  public static String lettuceClasspath(String version) {
    return classpath("lettuce-core", version);
  }

  public static String springWebClasspath(String version) {
    return classpath("spring-web", version);
  }

  /**
   * Lettuce {@code version} with Micrometer's observation API, for its {@code MicrometerTracing}.
   */
  public static String lettuceWithMicrometerClasspath(String version) {
    Path dir = ItConfig.clientsDir().resolve("micrometer-observation");
    try (Stream<Path> jars = Files.list(dir)) {
      List<String> entries = new ArrayList<>(List.of(lettuceClasspath(version)));
      jars.filter(p -> p.toString().endsWith(".jar"))
          .sorted()
          .forEach(p -> entries.add(p.toString()));
      return String.join(File.pathSeparator, entries);
    } catch (IOException e) {
      throw new IllegalStateException("no Micrometer jars in " + dir, e);
    }
  }

  private static String classpath(String client, String version) {
    String folder = client.equals("lettuce-core") ? "lettuce" : client;
    List<String> entries = new ArrayList<>();
    entries.add(ItConfig.appClasses().toString());
    List<Path> jars = jars(folder, version);
    jars.forEach(p -> entries.add(p.toString()));
    if (entries.stream().noneMatch(e -> e.contains(client + "-" + version + ".jar"))) {
      throw new IllegalStateException(client + "-" + version + ".jar missing for " + version);
    }
    VersionMatrix.Client matrixClient =
        switch (folder) {
          case "jedis" -> VersionMatrix.Client.JEDIS;
          case "lettuce" -> VersionMatrix.Client.LETTUCE;
          default -> null;
        };
    String donor =
        VersionMatrix.LINES.stream()
            .filter(l -> l.client() == matrixClient && l.releases().contains(version))
            .map(VersionMatrix.Line::dependenciesOf)
            .filter(d -> d != null && !d.equals(version))
            .findFirst()
            .orElse(null);
    if (donor != null) {
      // a matrix release copied without its line's dependencies borrows them from the donor's
      // folder
      List<Path> dependencies =
          jars(folder, donor).stream()
              .filter(p -> !p.getFileName().toString().startsWith(client + "-"))
              .toList();
      Set<String> own = jars.stream().map(Clients::artifact).collect(Collectors.toSet());
      if (dependencies.stream().map(Clients::artifact).noneMatch(own::contains)) {
        dependencies.forEach(p -> entries.add(p.toString()));
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /** {@code netty-common} of {@code netty-common-4.1.118.Final.jar}. */
  private static String artifact(Path jar) {
    return jar.getFileName().toString().replaceFirst("-[0-9][^-]*(-[^-]*)?\\.jar$", "");
  }

  private static List<Path> jars(String folder, String version) {
    Path dir = ItConfig.clientsDir().resolve(folder + "-" + version);
    try (Stream<Path> jars = Files.list(dir)) {
      return jars.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
    } catch (Exception e) {
      throw new IllegalStateException(
          "no client jars in "
              + dir
              + " (they are copied by maven-dependency-plugin in process-test-resources)",
          e);
    }
  }
}
