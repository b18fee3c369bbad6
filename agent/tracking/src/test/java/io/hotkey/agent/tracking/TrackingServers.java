package io.hotkey.agent.tracking;

import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.testing.RedisBuild;
import io.hotkey.agent.testing.RedisProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/** Servers and raw connections for the tracking tests. */
final class TrackingServers {
  private TrackingServers() {}

  /**
   * @param withoutHello renames HELLO away, as a server or proxy without RESP3 would answer it
   */
  static RedisProcess start(RedisBuild build, boolean withoutHello) throws Exception {
    return withoutHello
        ? RedisProcess.start(build, "--rename-command", "HELLO", "hello-disabled-for-test")
        : RedisProcess.start(build);
  }

  static RedisEndpoint endpoint(RedisProcess redis) {
    return RedisEndpoint.of("127.0.0.1", redis.port());
  }

  static RespConnection connect(RedisProcess redis) throws IOException {
    return new RespConnection(endpoint(redis), 2000, 2000);
  }

  /** The CLIENT LIST lines of the agent's own connections. */
  static List<String> agentClients(RespConnection admin) throws IOException {
    String clients = new String((byte[]) call(admin, "CLIENT", "LIST"), StandardCharsets.UTF_8);
    return clients
        .lines()
        .filter(line -> line.contains(" name=hotkey-agent "))
        .collect(Collectors.toList());
  }

  static int killAgentConnections(RespConnection admin) throws IOException {
    int killed = 0;
    for (String line : agentClients(admin)) {
      String id = line.replaceFirst("^id=(\\d+) .*$", "$1");
      killed += ((Long) call(admin, "CLIENT", "KILL", "ID", id)).intValue();
    }
    return killed;
  }

  static Object call(RespConnection connection, String... command) throws IOException {
    byte[][] args = new byte[command.length][];
    for (int i = 0; i < command.length; i++) {
      args[i] = command[i].getBytes(StandardCharsets.UTF_8);
    }
    return connection.call(args);
  }

  /** Waits up to 10 s for {@code condition}, looking every 5 ms. */
  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 10 s: " + what);
      }
      Thread.sleep(5);
    }
  }
}
