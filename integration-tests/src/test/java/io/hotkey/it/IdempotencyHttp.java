package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * HTTP over real sockets to a child application whose {@code POST /orders} the agent guards with Idempotency-Key,
 * and the part of the contract every server adapter must keep ({@link #assertOneKeyContract}). The application's
 * handler answers 201 JSON that differs on every run, with {@code Location: /orders/<run>} and {@code Set-Cookie};
 * {@code X-Mode: slow|fail|throw} make it sleep 500 ms, answer 500 or throw.
 */
final class IdempotencyHttp {
    /** How often the application's handler has run so far. */
    @FunctionalInterface
    interface Runs {
        int count() throws Exception;
    }

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    static HttpRequest post(String url, String key, String body, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(url))
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

    HttpResponse<byte[]> send(HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    CompletableFuture<HttpResponse<byte[]>> sendAsync(HttpRequest request) {
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    /** The status, or -1 when the server closed the connection without answering. */
    int statusOrClosed(HttpRequest request) throws Exception {
        try {
            return send(request).statusCode();
        } catch (IOException closed) {
            return -1;
        }
    }

    String get(String url) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }

    static String text(HttpResponse<byte[]> response) {
        return response.statusCode() + " " + new String(response.body(), StandardCharsets.UTF_8);
    }

    static String header(HttpResponse<?> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }

    static boolean replayed(HttpResponse<?> response) {
        return "true".equals(header(response, "Idempotent-Replayed"));
    }

    /**
     * On {@code <base>/orders}, whose handler has run {@code runsBefore} times: 200 concurrent requests with one key
     * run the handler once and every non-409 answer is the first one (409s carry Retry-After); a retry is replayed
     * with the marker and without Set-Cookie; the same key with another payload gets 422, an invalid key 400; a 500
     * and an exception release the key; two callers (Authorization) with one key never share a record.
     *
     * @param statusWhenHandlerThrows what the server answers when the handler throws (-1: it closes the connection)
     */
    void assertOneKeyContract(String label, String base, Runs runs, int statusWhenHandlerThrows) throws Exception {
        String orders = base + "/orders";
        int before = runs.count();
        // the second hundred starts once the first has finished, so many of them are replays
        String key = UUID.randomUUID().toString();
        List<CompletableFuture<HttpResponse<byte[]>>> pending = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            if (i == 100) {
                CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
            }
            pending.add(sendAsync(post(orders, key, "{\"sku\":7}", "X-Mode", "slow")));
        }
        byte[] reference = null;
        int conflicts = 0;
        int answered = 0;
        int replays = 0;
        for (CompletableFuture<HttpResponse<byte[]>> future : pending) {
            HttpResponse<byte[]> response = future.get(60, TimeUnit.SECONDS);
            if (response.statusCode() == 409) {
                conflicts++;
                assertNotNull(header(response, "Retry-After"), label + ": 409 has Retry-After");
                continue;
            }
            assertEquals(201, response.statusCode(), () -> label + ": " + text(response));
            answered++;
            replays += replayed(response) ? 1 : 0;
            if (reference == null) {
                reference = response.body();
            } else {
                assertArrayEquals(reference, response.body(), label + ": every non-409 answer is byte-identical");
            }
        }
        assertNotNull(reference, label + ": some request got the handler's answer");
        assertEquals(before + 1, runs.count(), label + ": 200 concurrent requests with one key ran the handler once");
        System.out.println("[it] " + label + ": 200 concurrent -> " + answered + " x 201 (" + replays + " replayed), "
                + conflicts + " x 409");
        assertTrue(replays > 0, label + ": requests sent after completion were replayed");

        // a retry after completion is replayed, with the marker and without Set-Cookie
        HttpResponse<byte[]> replay = send(post(orders, key, "{\"sku\":7}", "X-Mode", "slow"));
        assertEquals(201, replay.statusCode());
        assertArrayEquals(reference, replay.body());
        assertEquals("true", header(replay, "Idempotent-Replayed"));
        assertEquals("/orders/" + (before + 1), header(replay, "Location"));
        assertTrue(String.valueOf(header(replay, "Content-Type")).startsWith("application/json"));
        assertTrue(replay.headers().firstValue("Set-Cookie").isEmpty(), label + ": Set-Cookie is never replayed");

        // the same key with another payload: 422; an invalid key: 400
        HttpResponse<byte[]> mismatch = send(post(orders, key, "{\"sku\":8}"));
        assertEquals(422, mismatch.statusCode(), () -> label + ": " + text(mismatch));
        assertTrue(String.valueOf(header(mismatch, "Content-Type")).startsWith("application/problem+json"));
        HttpResponse<byte[]> invalid = send(post(orders, "k".repeat(256), "{\"sku\":7}"));
        assertEquals(400, invalid.statusCode(), () -> label + ": " + text(invalid));
        assertTrue(text(invalid).contains("\"status\":400"), () -> text(invalid));
        assertEquals(before + 1, runs.count());

        // a 500 and an exception release the key; the retry then runs and is stored
        String failing = UUID.randomUUID().toString();
        assertEquals(500, statusOrClosed(post(orders, failing, "x", "X-Mode", "fail")), label + ": 500");
        assertEquals(statusWhenHandlerThrows, statusOrClosed(post(orders, failing, "x", "X-Mode", "throw")),
                label + ": what the server does when the handler throws");
        HttpResponse<byte[]> recovered = send(post(orders, failing, "x"));
        assertEquals(201, recovered.statusCode(), () -> label + ": " + text(recovered));
        assertFalse(replayed(recovered), label + ": the retry after a 500 and an exception ran");
        assertEquals(before + 4, runs.count(), label + ": the 500, the exception and the retry each ran the handler");
        assertArrayEquals(recovered.body(), send(post(orders, failing, "x")).body());
        assertEquals(before + 4, runs.count());

        // different callers (Authorization) never share a record
        String shared = UUID.randomUUID().toString();
        HttpResponse<byte[]> alice = send(post(orders, shared, "y", "Authorization", "Bearer alice"));
        HttpResponse<byte[]> bob = send(post(orders, shared, "y", "Authorization", "Bearer bob"));
        assertEquals(201, alice.statusCode());
        assertEquals(201, bob.statusCode());
        assertFalse(replayed(bob), label + ": bob's request ran");
        assertEquals(before + 6, runs.count(), label + ": each caller ran its own request");
        HttpResponse<byte[]> aliceAgain = send(post(orders, shared, "y", "Authorization", "Bearer alice"));
        assertArrayEquals(alice.body(), aliceAgain.body());
        assertEquals("true", header(aliceAgain, "Idempotent-Replayed"));
        assertFalse(Arrays.equals(alice.body(), bob.body()), label + ": bob never gets alice's answer");
        assertEquals(before + 6, runs.count());
    }
}
