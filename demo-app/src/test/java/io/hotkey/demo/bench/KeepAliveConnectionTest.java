package io.hotkey.demo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The load driver's own HTTP/1.1 client against the JDK server: both body framings, the header, one
 * connection.
 */
class KeepAliveConnectionTest {

  @Test
  void readsFixedLengthAndChunkedAnswersOnOneConnection() throws Exception {
    Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            clientPorts.add(exchange.getRemoteAddress().getPort());
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            byte[] body =
                (exchange.getRequestMethod()
                        + " "
                        + key
                        + " "
                        + new String(
                            exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8))
                    .getBytes(StandardCharsets.UTF_8);
            boolean chunked = exchange.getRequestURI().getPath().equals("/chunked");
            if (key != null) {
              exchange.getResponseHeaders().set("Idempotent-Replayed", "true");
            }
            exchange.sendResponseHeaders(201, chunked ? 0 : body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body, 0, 3);
              out.flush();
              out.write(body, 3, body.length - 3);
            }
          }
        });
    server.start();
    try (KeepAliveConnection connection = new KeepAliveConnection(server.getAddress().getPort())) {
      KeepAliveConnection.Answer fixed = connection.post("/fixed", "k-1", "{\"a\":1}");
      assertEquals(201, fixed.status());
      assertTrue(fixed.replayed());
      assertEquals("POST k-1 {\"a\":1}", fixed.body());

      KeepAliveConnection.Answer chunked = connection.post("/chunked", "k-2", "{\"b\":2}");
      assertEquals("POST k-2 {\"b\":2}", chunked.body());

      KeepAliveConnection.Answer plain = connection.get("/fixed");
      assertEquals(201, plain.status());
      assertFalse(plain.replayed());
      assertEquals("GET null ", plain.body());
    } finally {
      server.stop(0);
    }
    assertEquals(1, clientPorts.size(), "all three requests came on one kept-alive connection");
  }
}
