package io.hotkey.agent.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.testing.RedisBuild;
import io.hotkey.agent.testing.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The agent's tracking connection against real servers, in each way invalidations can arrive. */
class TrackingSessionTest {
  private static final String FLUSHED = "<flushed>";
  private static final String BROKEN = "broken: ";
  private static final InvalidationDrains DRAINS = new InvalidationDrains(System::nanoTime);

  static Stream<Arguments> servers() {
    return Stream.of(
        Arguments.of("Redis 6.2, RESP3 push", RedisBuild.EMBEDDED_6_2, false),
        Arguments.of("Redis 6.2, RESP2 redirect (HELLO disabled)", RedisBuild.EMBEDDED_6_2, true),
        Arguments.of("Redis 7, RESP3 push", RedisBuild.DEBIAN_7, false),
        Arguments.of("Redis 7, RESP2 redirect (HELLO disabled)", RedisBuild.DEBIAN_7, true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void writesByOtherClientsToRegisteredPrefixesAndFlushesAreReported(
      String name, RedisBuild build, boolean withoutHello) throws Exception {
    try (RedisProcess redis = TrackingServers.start(build, withoutHello);
        RespConnection writer = TrackingServers.connect(redis)) {
      BlockingQueue<String> heard = new LinkedBlockingQueue<>();
      try (TrackingSession session =
          TrackingSession.open(TrackingServers.endpoint(redis), recorder(heard), DRAINS)) {
        assertEquals(!withoutHello, session.resp3(), session.toString());
        session.addPrefixes(List.of(bytes("product:")));

        writer.call(bytes("SET"), bytes("product:1"), bytes("v"));
        assertEquals("product:1", heard.poll(5, TimeUnit.SECONDS));
        writer.call(bytes("SET"), bytes("other:1"), bytes("v"));
        writer.call(bytes("DEL"), bytes("product:2"), bytes("product:1"));
        assertEquals("product:1", heard.poll(5, TimeUnit.SECONDS), "other:1 is not registered");
        writer.call(bytes("FLUSHALL"));
        assertEquals(FLUSHED, heard.poll(5, TimeUnit.SECONDS));
        session.ping();
        assertNull(session.brokenBecause());
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void keysThatExpireOnTheServerAreReported(String name, RedisBuild build, boolean withoutHello)
      throws Exception {
    try (RedisProcess redis = TrackingServers.start(build, withoutHello);
        RespConnection writer = TrackingServers.connect(redis)) {
      BlockingQueue<String> heard = new LinkedBlockingQueue<>();
      try (TrackingSession session =
          TrackingSession.open(TrackingServers.endpoint(redis), recorder(heard), DRAINS)) {
        session.addPrefixes(List.of(bytes("session:7")));
        writer.call(bytes("SET"), bytes("session:7"), bytes("v"), bytes("PX"), bytes("50"));
        assertEquals("session:7", heard.poll(5, TimeUnit.SECONDS), "the SET itself");
        assertEquals("session:7", heard.poll(5, TimeUnit.SECONDS), "the expiry");
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void aKilledConnectionBreaksTheSession(String name, RedisBuild build, boolean withoutHello)
      throws Exception {
    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
    try (RedisProcess redis = TrackingServers.start(build, withoutHello);
        RespConnection admin = TrackingServers.connect(redis);
        TrackingSession session =
            TrackingSession.open(TrackingServers.endpoint(redis), recorder(heard), DRAINS)) {
      session.addPrefixes(List.of(bytes("k")));
      TrackingServers.killAgentConnections(admin);
      String told = heard.poll(5, TimeUnit.SECONDS);
      assertEquals(
          BROKEN + session.brokenBecause(), told, "the listener is told the moment it breaks");
    }
    assertEquals(
        List.of(), List.copyOf(heard), "a session the agent closes itself is not reported");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void theAgentsConnectionsAreNamedInClientList(String name, RedisBuild build, boolean withoutHello)
      throws Exception {
    try (RedisProcess redis = TrackingServers.start(build, withoutHello);
        RespConnection admin = TrackingServers.connect(redis);
        TrackingSession session =
            TrackingSession.open(
                TrackingServers.endpoint(redis), recorder(new LinkedBlockingQueue<>()), DRAINS)) {
      session.addPrefixes(List.of(bytes("k")));
      List<String> agents = TrackingServers.agentClients(admin);
      assertEquals(withoutHello ? 2 : 1, agents.size(), agents.toString());
      assertTrue(agents.stream().anyMatch(l -> l.contains(" flags=t")), agents.toString());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void theServersTrackingClientsAreCountedForThePingInterval(
      String name, RedisBuild build, boolean withoutHello) throws Exception {
    try (RedisProcess redis = TrackingServers.start(build, withoutHello);
        RespConnection other = TrackingServers.connect(redis);
        TrackingSession session =
            TrackingSession.open(
                TrackingServers.endpoint(redis), recorder(new LinkedBlockingQueue<>()), DRAINS)) {
      assertEquals(OptionalLong.of(0), session.trackingClients(), "nothing registered yet");
      session.addPrefixes(List.of(bytes("k")));
      assertEquals(OptionalLong.of(1), session.trackingClients(), "the session's own connection");
      Object id = other.call(bytes("CLIENT"), bytes("ID"));
      other.call(
          bytes("CLIENT"),
          bytes("TRACKING"),
          bytes("ON"),
          bytes("REDIRECT"),
          bytes(String.valueOf(id)));
      assertEquals(OptionalLong.of(2), session.trackingClients(), "another client tracking");
    }
  }

  @Test
  void aRefusedLoginIsToldApartFromAMissingRight() throws Exception {
    try (RedisProcess redis = withUserApp("-client", "--requirepass", "right")) {
      RedisEndpoint server = TrackingServers.endpoint(redis);
      assertRefused(server.withCredentialsFrom(() -> null), "login"); // NOAUTH
      assertRefused(server.withCredentials(null, "wrong"), "login"); // WRONGPASS
      assertRefused(server.withCredentials("app", "right"), "allow CLIENT TRACKING"); // NOPERM
    }
  }

  @Test
  void aUserWithoutInfoTracksAndItsServersTrackingClientsAreUnknown() throws Exception {
    try (RedisProcess redis = withUserApp("-info")) {
      RedisEndpoint server = TrackingServers.endpoint(redis).withCredentials("app", "right");
      try (TrackingSession session =
          TrackingSession.open(server, recorder(new LinkedBlockingQueue<>()), DRAINS)) {
        session.addPrefixes(List.of(bytes("k")));
        assertEquals(OptionalLong.empty(), session.trackingClients(), "INFO refused");
        session.ping();
        assertNull(session.brokenBecause(), "the refusal does not break the session");
      }
    }
  }

  /** Redis 6.2 with a user "app" (password "right") allowed everything but {@code denied}. */
  private static RedisProcess withUserApp(String denied, String... options) throws Exception {
    List<String> args = new ArrayList<>(List.of(options));
    args.addAll(List.of("--user", "app", "on", ">right", "~*", "&*", "+@all", denied));
    return RedisProcess.start(RedisBuild.EMBEDDED_6_2, args.toArray(String[]::new));
  }

  private static void assertRefused(RedisEndpoint endpoint, String remedy) {
    TrackingRefused refused =
        assertThrows(
            TrackingRefused.class,
            () ->
                TrackingSession.open(endpoint, recorder(new LinkedBlockingQueue<>()), DRAINS)
                    .close());
    assertTrue(refused.remedy().contains(remedy), refused.getMessage() + ": " + refused.remedy());
  }

  private static TrackingSession.Listener recorder(BlockingQueue<String> heard) {
    return new TrackingSession.Listener() {
      @Override
      public void onInvalidated(List<byte[]> keys) {
        for (byte[] key : keys) {
          heard.add(new String(key, StandardCharsets.UTF_8));
        }
      }

      @Override
      public void onFlushed() {
        heard.add(FLUSHED);
      }

      @Override
      public void onBroken(String reason) {
        heard.add(BROKEN + reason);
      }
    };
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
