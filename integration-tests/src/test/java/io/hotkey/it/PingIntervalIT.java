package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The agent's tracking connection pings its server less often when thousands of clients track that
 * server, as a fleet of thousands of instances has it do: all of them together about 2,500 times a
 * second, so each of 4,000 every 1.6 s instead of every 250 ms. The pings are counted with {@code
 * MONITOR}, from the agent's own connection only.
 */
@SideLane
class PingIntervalIT extends RedisTestBase {
  private static final int OTHER_TRACKERS = 4_000;

  @Test
  void aServerTrackedByThousandsOfClientsIsPingedLessOftenByEach() throws Exception {
    try (LiveService app = LiveService.start(LiveService.app(redis).name("ping-interval"))) {
      app.load(LiveService.HOT, 400);
      String alone = awaitAgentConnection(null);
      long pingsAlone = pingsFrom(alone, Duration.ofSeconds(4));

      try (OtherTrackers others = OtherTrackers.open(redis, OTHER_TRACKERS);
          Jedis admin = redis.jedis()) {
        long tracking = trackingClients(admin);
        assertTrue(tracking > OTHER_TRACKERS, () -> tracking + " tracking clients");
        // a new session counts the server's tracking clients at once
        admin.clientKill(alone);
        String crowded = awaitAgentConnection(alone);
        long pingsCrowded = pingsFrom(crowded, Duration.ofSeconds(6));
        System.out.println(
            "[it] agent's pings: "
                + pingsAlone
                + " in 4 s alone, "
                + pingsCrowded
                + " in 6 s among "
                + tracking
                + " tracking clients");

        assertTrue(
            pingsAlone >= 8,
            () -> pingsAlone + " pings in 4 s with no other tracking client (every 250 ms: 16)");
        assertTrue(
            pingsCrowded >= 1 && pingsCrowded <= 8,
            () ->
                pingsCrowded
                    + " pings in 6 s with "
                    + tracking
                    + " tracking clients (every 1.6 s: 4; every 250 ms: 24)");
      }
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  /** The address of the agent's tracking connection, once there is one other than {@code old}. */
  private String awaitAgentConnection(String old) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try (Jedis admin = redis.jedis()) {
      while (System.nanoTime() < deadline) {
        for (String line : admin.clientList().split("\n")) {
          if (line.contains(" name=hotkey-agent ") && line.contains(" flags=t")) {
            String addr = field(line, "addr");
            if (!addr.equals(old)) {
              return addr;
            }
          }
        }
        Thread.sleep(50);
      }
    }
    throw new AssertionError("no tracking connection of the agent's (other than " + old + ")");
  }

  /** The PINGs {@code addr} sends over {@code span}, as {@code MONITOR} shows them. */
  private long pingsFrom(String addr, Duration span) throws IOException {
    String ping = (addr + "] \"ping\"").toLowerCase(Locale.ROOT);
    long pings = 0;
    try (Socket monitor = new Socket(redis.host(), redis.port())) {
      monitor.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
      InputStream in = new BufferedInputStream(monitor.getInputStream());
      StringBuilder line = new StringBuilder();
      long end = System.nanoTime() + span.toNanos();
      long left;
      while ((left = end - System.nanoTime()) > 0) {
        monitor.setSoTimeout((int) Math.max(1, left / 1_000_000));
        int b;
        try {
          b = in.read();
        } catch (SocketTimeoutException e) {
          break;
        }
        if (b < 0) {
          break;
        }
        if (b != '\n') {
          line.append((char) b);
          continue;
        }
        if (line.toString().toLowerCase(Locale.ROOT).contains(ping)) {
          pings++;
        }
        line.setLength(0);
      }
    }
    return pings;
  }

  private static long trackingClients(Jedis admin) {
    for (String line : admin.info("clients").split("\r?\n")) {
      if (line.startsWith("tracking_clients:")) {
        return Long.parseLong(line.substring("tracking_clients:".length()).trim());
      }
    }
    return -1;
  }

  private static String field(String clientListLine, String name) {
    for (String part : clientListLine.split(" ")) {
      if (part.startsWith(name + "=")) {
        return part.substring(name.length() + 1);
      }
    }
    return "";
  }

  /** Raw connections that each turned tracking on over RESP3, as other instances' agents do. */
  private static final class OtherTrackers implements AutoCloseable {
    private static final byte[] TRACK =
        (command("HELLO", "3") + command("CLIENT", "TRACKING", "ON"))
            .getBytes(StandardCharsets.US_ASCII);

    private final List<Socket> sockets = new ArrayList<>();

    static OtherTrackers open(RedisServer redis, int count) throws IOException {
      OtherTrackers trackers = new OtherTrackers();
      try {
        for (int i = 0; i < count; i++) {
          Socket socket;
          try {
            socket = new Socket(redis.host(), redis.port());
          } catch (IOException e) {
            throw new IOException(
                "connection "
                    + i
                    + " of "
                    + count
                    + " refused: the test needs about "
                    + (count + 200)
                    + " file descriptors (ulimit -n) and Redis maxclients above "
                    + count,
                e);
          }
          trackers.sockets.add(socket);
          socket.setSoTimeout(10_000);
          OutputStream out = socket.getOutputStream();
          out.write(TRACK);
          awaitOk(socket.getInputStream());
        }
      } catch (IOException | RuntimeException e) {
        trackers.close();
        throw e;
      }
      return trackers;
    }

    private static String command(String... words) {
      StringBuilder resp = new StringBuilder("*").append(words.length).append("\r\n");
      for (String word : words) {
        resp.append('$').append(word.length()).append("\r\n").append(word).append("\r\n");
      }
      return resp.toString();
    }

    /** Reads until {@code +OK}, the answer to {@code CLIENT TRACKING} after HELLO's map. */
    private static void awaitOk(InputStream in) throws IOException {
      int matched = 0;
      byte[] ok = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
      while (matched < ok.length) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("closed before CLIENT TRACKING answered");
        }
        matched = b == ok[matched] ? matched + 1 : b == ok[0] ? 1 : 0;
      }
    }

    @Override
    public void close() {
      for (Socket socket : sockets) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // closing a test's own connection: nothing to do
        }
      }
    }
  }
}
