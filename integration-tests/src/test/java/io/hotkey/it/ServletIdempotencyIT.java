package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
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

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tomcat-11.0.27, TomcatJakartaApp", "tomcat-9.0.111, TomcatJavaxApp", "jetty-12.1.14, JettyApp"})
    void idempotencyKeyOnServletContainer(String server, String app) throws Exception {
        try (Child child = Child.start(server, app)) {
            String base = "http://127.0.0.1:" + child.port;

            // 200 concurrent requests with one key: the handler (500 ms) runs once, every non-409 answer is the
            // first one; the second hundred starts once the first has finished, so many of them are replays
            String key = UUID.randomUUID().toString();
            List<CompletableFuture<HttpResponse<byte[]>>> pending = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                if (i == 100) {
                    CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
                }
                pending.add(client.sendAsync(post(base, key, "{\"sku\":7}", "X-Mode", "slow"),
                        HttpResponse.BodyHandlers.ofByteArray()));
            }
            byte[] reference = null;
            int conflicts = 0;
            int answered = 0;
            int replays = 0;
            for (CompletableFuture<HttpResponse<byte[]>> future : pending) {
                HttpResponse<byte[]> response = future.get(60, TimeUnit.SECONDS);
                if (response.statusCode() == 409) {
                    conflicts++;
                    assertTrue(response.headers().firstValue("Retry-After").isPresent(), "409 has Retry-After");
                    continue;
                }
                assertEquals(201, response.statusCode(), () -> server + ": " + text(response));
                answered++;
                replays += response.headers().firstValue("Idempotent-Replayed").isPresent() ? 1 : 0;
                if (reference == null) {
                    reference = response.body();
                } else {
                    assertArrayEquals(reference, response.body(), server + ": every non-409 answer is byte-identical");
                }
            }
            assertNotNull(reference, server + ": some request got the handler's answer");
            assertEquals(1, runs(base), server + ": 200 concurrent requests with one key ran the handler once");
            System.out.println("[it] " + server + ": 200 concurrent -> " + answered + " x 201 (" + replays + " replayed), "
                    + conflicts + " x 409");
            assertTrue(replays > 0, "requests sent after completion were replayed");

            // a retry after completion is replayed, with the marker and without Set-Cookie
            HttpResponse<byte[]> replay = send(post(base, key, "{\"sku\":7}", "X-Mode", "slow"));
            assertEquals(201, replay.statusCode());
            assertArrayEquals(reference, replay.body());
            assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElse(null));
            assertEquals("/orders/1", replay.headers().firstValue("Location").orElse(null));
            assertTrue(replay.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
            assertTrue(replay.headers().firstValue("Set-Cookie").isEmpty(), "Set-Cookie is never replayed");

            // the same key with another payload: 422; an invalid key: 400
            HttpResponse<byte[]> mismatch = send(post(base, key, "{\"sku\":8}"));
            assertEquals(422, mismatch.statusCode(), () -> text(mismatch));
            assertTrue(mismatch.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"));
            HttpResponse<byte[]> invalid = send(post(base, "k".repeat(256), "{\"sku\":7}"));
            assertEquals(400, invalid.statusCode(), () -> text(invalid));
            assertTrue(text(invalid).contains("\"status\":400"), () -> text(invalid));
            assertEquals(1, runs(base));

            // a 500 and an exception release the key; the retry then runs and is stored
            String failing = UUID.randomUUID().toString();
            assertEquals(500, send(post(base, failing, "x", "X-Mode", "fail")).statusCode());
            assertEquals(500, send(post(base, failing, "x", "X-Mode", "throw")).statusCode());
            HttpResponse<byte[]> recovered = send(post(base, failing, "x"));
            assertEquals(201, recovered.statusCode());
            assertEquals(4, runs(base), "the 500, the exception and the retry each ran the handler");
            assertArrayEquals(recovered.body(), send(post(base, failing, "x")).body());
            assertEquals(4, runs(base));

            // different callers (Authorization) never share a record
            String shared = UUID.randomUUID().toString();
            HttpResponse<byte[]> alice = send(post(base, shared, "y", "Authorization", "Bearer alice"));
            HttpResponse<byte[]> bob = send(post(base, shared, "y", "Authorization", "Bearer bob"));
            assertEquals(201, alice.statusCode());
            assertEquals(201, bob.statusCode());
            assertEquals(6, runs(base), "each caller ran its own request");
            HttpResponse<byte[]> aliceAgain = send(post(base, shared, "y", "Authorization", "Bearer alice"));
            assertArrayEquals(alice.body(), aliceAgain.body());
            assertEquals("true", aliceAgain.headers().firstValue("Idempotent-Replayed").orElse(null));
            assertTrue(!java.util.Arrays.equals(alice.body(), bob.body()), "bob never gets alice's answer");
            assertEquals(6, runs(base));

            String log = child.output();
            assertTrue(log.contains("instrumented"), () -> "agent log:\n" + log);
            assertTrue(!log.contains("internal error"), () -> "agent log:\n" + log);
        }
    }

    private static HttpRequest post(String base, String key, String body, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + "/orders"))
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (key != null) {
            builder.header("Idempotency-Key", key);
        }
        for (int i = 0; i < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        return builder.build();
    }

    private HttpResponse<byte[]> send(HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    private int runs(String base) throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(base + "/runs")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return Integer.parseInt(response.body().trim());
    }

    private static String text(HttpResponse<byte[]> response) {
        return response.statusCode() + " " + new String(response.body(), StandardCharsets.UTF_8);
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
