package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Idempotency-Key on real servlet containers over real sockets, with no code change: a child JVM runs
 * an embedded Tomcat 11 (jakarta), Tomcat 9 (javax) or Jetty 12 (ee10) application with
 * {@code -javaagent:} and {@code hotkey.idempotency.routes=POST /orders/**}. The applications
 * (src/test/servlet-apps) are compiled here against the container they run on (target/servers/*, copied
 * by the build), so each container keeps its own servlet API.
 */
class ServletIdempotencyIT {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(40);
    private static final AtomicInteger SEQ = new AtomicInteger();

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tomcat-11.0.27, TomcatJakartaApp", "tomcat-9.0.111, TomcatJavaxApp", "jetty-12.1.14, JettyApp"})
    void idempotencyKeyOnServletContainer(String server, String app) throws Exception {
        try (Child child = Child.start(server, app)) {
            new IdempotencyOverHttp(server, "http://127.0.0.1:" + child.port, "/orders", "/runs").proveAll();

            String log = child.output();
            assertTrue(log.contains("instrumented"), () -> "agent log:\n" + log);
            assertTrue(!log.contains("internal error"), () -> "agent log:\n" + log);
        }
    }

    /** A servlet application in a child JVM with the agent. */
    private static final class Child implements AutoCloseable {
        final Process process;
        final int port;
        final Path log;

        private Child(Process process, int port, Path log) {
            this.process = process;
            this.port = port;
            this.log = log;
        }

        static Child start(String server, String app) throws Exception {
            Path target = ItConfig.workDir().getParent();
            Path serverDir = target.resolve("servers").resolve(server);
            String serverClasspath;
            try (Stream<Path> jars = Files.list(serverDir)) {
                serverClasspath = jars.filter(p -> p.toString().endsWith(".jar")).map(Path::toString).sorted()
                        .collect(Collectors.joining(java.io.File.pathSeparator));
            }
            Path classes = compile(target, server, app, serverClasspath);
            Path jar = ItConfig.agentJar();
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("agent jar not found: " + jar);
            }
            Path logs = Files.createDirectories(ItConfig.workDir().resolve("logs"));
            Path log = logs.resolve(String.format("servlet-%02d-%s.log", SEQ.incrementAndGet(), server));
            List<String> command = List.of(ItConfig.jdk17().resolve("bin/java").toString(), "-Xmx256m",
                    "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-javaagent:" + jar,
                    "-Dhotkey.idempotency.routes=POST /orders/**", "-Dhotkey.report.interval=0",
                    "-cp", classes + java.io.File.pathSeparator + serverClasspath, app);
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().keySet().removeIf(k -> k.startsWith("HOTKEY_"));
            Process process = builder.start();
            CountDownLatch listening = new CountDownLatch(1);
            int[] port = {-1};
            Thread pump = new Thread(() -> {
                try (BufferedReader reader = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                     OutputStream out = Files.newOutputStream(log)) {
                    String line;
                    while ((line = reader.readLine()) != null) {
                        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                        out.flush();
                        if (line.startsWith("PORT ")) {
                            port[0] = Integer.parseInt(line.substring(5).trim());
                            listening.countDown();
                        }
                    }
                } catch (IOException ignored) {
                    // the child is gone
                } finally {
                    listening.countDown();
                }
            }, "servlet-it-" + server);
            pump.setDaemon(true);
            pump.start();
            if (!listening.await(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS) || port[0] < 0) {
                process.destroyForcibly();
                throw new IllegalStateException(server + " did not start; see " + log + ":\n" + Files.readString(log));
            }
            return new Child(process, port[0], log);
        }

        private static Path compile(Path target, String server, String app, String classpath) throws IOException {
            Path sources = target.getParent().resolve("src/test/servlet-apps");
            Path out = Files.createDirectories(target.resolve("servlet-apps").resolve(server));
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            int rc = javac.run(null, null, null, "-nowarn", "--release", "17", "-cp", classpath, "-d", out.toString(),
                    sources.resolve(app + ".java").toString());
            if (rc != 0) {
                throw new IllegalStateException("cannot compile " + app + " against " + server);
            }
            return out;
        }

        String output() throws IOException {
            return Files.readString(log);
        }

        @Override
        public void close() throws Exception {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
