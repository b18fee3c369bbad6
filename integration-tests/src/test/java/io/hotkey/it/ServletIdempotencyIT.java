package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Idempotency-Key on real servlet containers over real sockets, with no code change: a child JVM
 * runs an embedded Tomcat 11 (jakarta), Tomcat 9 (javax) or Jetty 12 (ee10) application with {@code
 * -javaagent:} and {@code hotkey.idempotency.routes=POST /orders/**}. The applications
 * (src/test/servlet-apps) are compiled here against the container they run on (target/servers/*,
 * copied by the build), so each container keeps its own servlet API. Beside the shared checks of
 * {@link IdempotencyOverHttp}, the agent's JMX IdempotencyOutcomes must equal what the requests
 * caused. On the Tomcats, whose applications answer every other path, the rest of the playbook too
 * ({@link PlaybookOverHttp}).
 */
class ServletIdempotencyIT {
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "tomcat-11.0.27, TomcatJakartaApp, true",
    "tomcat-9.0.111, TomcatJavaxApp, true",
    "jetty-12.1.14, JettyApp, false"
  })
  void idempotencyKeyOnServletContainer(String server, String app, boolean playbook)
      throws Exception {
    try (RunningJvm child = start(server, app)) {
      IdempotencyOverHttp http =
          new IdempotencyOverHttp(
              server, child.base(), "/orders", IdempotencyOverHttp.Runs.at(child.base() + "/runs"));
      http.proveAll();
      if (playbook) {
        new PlaybookOverHttp(server, child.base(), http).proveAll();
      }
      // the container's error dispatch after the exception, or a nested servlet call, taken for a
      // request of
      // its own would show up as extra executions, conflicts or releases
      http.assertCounted("JMX IdempotencyOutcomes", IdempotencyOverHttp.jmxOutcomes(child.base()));

      String log = child.output();
      assertTrue(log.contains("instrumented"), () -> "agent log:\n" + log);
      assertTrue(!log.contains("internal error"), () -> "agent log:\n" + log);
    }
  }

  /** The servlet application in a child JVM with the agent. */
  private static RunningJvm start(String server, String app) throws IOException {
    Path target = ItConfig.workDir().getParent();
    Path serverDir = target.resolve("servers").resolve(server);
    String serverClasspath;
    try (Stream<Path> jars = Files.list(serverDir)) {
      serverClasspath =
          jars.filter(p -> p.toString().endsWith(".jar"))
              .map(Path::toString)
              .sorted()
              .collect(Collectors.joining(java.io.File.pathSeparator));
    }
    // the application reads the agent's JMX attribute through io.hotkey.it.app.Child
    String classpath = serverClasspath + java.io.File.pathSeparator + ItConfig.appClasses();
    Path classes = compile(target, server, app, classpath);
    AgentJvm jvm =
        AgentJvm.app("servlet-" + server, classes + java.io.File.pathSeparator + classpath, app)
            .prop("hotkey.idempotency.routes", "POST /orders/**")
            .prop("hotkey.report.interval", "0")
            .timeout(Duration.ofSeconds(40));
    PlaybookOverHttp.PROPERTIES.forEach(jvm::prop);
    return jvm.start();
  }

  private static Path compile(Path target, String server, String app, String classpath)
      throws IOException {
    Path sources = target.getParent().resolve("src/test/servlet-apps");
    Path out = Files.createDirectories(target.resolve("servlet-apps").resolve(server));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int rc =
        javac.run(
            null,
            null,
            null,
            "-nowarn",
            "--release",
            "17",
            "-cp",
            classpath,
            "-d",
            out.toString(),
            sources.resolve(app + ".java").toString());
    if (rc != 0) {
      throw new IllegalStateException("cannot compile " + app + " against " + server);
    }
    return out;
  }
}
