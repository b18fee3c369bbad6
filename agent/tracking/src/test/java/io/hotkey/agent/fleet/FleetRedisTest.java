package io.hotkey.agent.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.core.ServerSightings;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.testing.RedisBuild;
import io.hotkey.agent.testing.RedisClusterProcesses;
import io.hotkey.agent.testing.RedisProcess;
import io.hotkey.agent.testing.Stderr;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Which Redis the fleet's counts go to when no URI names one, from the servers the application's
 * clients were seen using, asked for real: one server is it; a server and its replica are one
 * deployment, reached at the master; the nodes of one Cluster are one deployment; a server that
 * cannot be reached does not count; two servers turn fleet detection off with one line naming the
 * key to set.
 */
class FleetRedisTest {
  private static RedisProcess first;
  private static RedisProcess second;
  private static RedisProcess replicaOfFirst;

  @BeforeAll
  static void start() throws Exception {
    first = RedisProcess.start(RedisBuild.DEBIAN_7);
    second = RedisProcess.start(RedisBuild.DEBIAN_7);
    replicaOfFirst =
        RedisProcess.start(
            RedisBuild.DEBIAN_7, "--replicaof", "127.0.0.1", Integer.toString(first.port()));
  }

  @AfterAll
  static void stop() throws Exception {
    replicaOfFirst.close();
    second.close();
    first.close();
  }

  @Test
  void theOneServerTheClientsUseIsIt() {
    ServerSightings sightings = new ServerSightings();
    FleetRedis where = FleetRedis.discovered(sightings);
    assertNull(where.current(), "nothing sighted yet");
    RedisEndpoint server = RedisEndpoint.of("127.0.0.1", first.port());
    sightings.sighted(server);
    assertSame(server, where.current());
  }

  @Test
  void aServerAndItsReplicaAreOneDeploymentReachedAtTheMaster() {
    ServerSightings sightings = new ServerSightings();
    FleetRedis where = FleetRedis.discovered(sightings);
    sightings.sighted(RedisEndpoint.of("127.0.0.1", replicaOfFirst.port()));
    RedisEndpoint fromReplica = where.current();
    assertEquals(first.port(), fromReplica.port(), "the master, told by the replica");
    sightings.sighted(RedisEndpoint.of("127.0.0.1", first.port()));
    assertEquals(first.port(), where.current().port());
  }

  @Test
  void aServerThatCannotBeReachedDoesNotCount() throws Exception {
    ServerSightings sightings = new ServerSightings();
    FleetRedis where = FleetRedis.discovered(sightings);
    sightings.sighted(RedisEndpoint.of("127.0.0.1", RedisProcess.freePort()));
    assertNull(where.current());
    RedisEndpoint server = RedisEndpoint.of("127.0.0.1", second.port());
    sightings.sighted(server);
    assertSame(server, where.current());
  }

  @Test
  void twoDeploymentsTurnFleetDetectionOffNamingTheKeyToSet() throws Exception {
    ServerSightings sightings = new ServerSightings();
    FleetRedis where = FleetRedis.discovered(sightings);
    sightings.sighted(RedisEndpoint.of("127.0.0.1", first.port()));
    sightings.sighted(RedisEndpoint.of("127.0.0.1", second.port()));
    String log =
        String.join(
            "\n",
            Stderr.of(
                () -> {
                  assertNull(where.current());
                  assertNull(where.current(), "asked again, nothing new sighted");
                }));
    assertEquals(1, log.split("fleet detection is off", -1).length - 1, log);
    assertTrue(
        log.contains("the application uses 2 Redis deployments")
            && log.contains("set hotkey.fleet.redis.uri to the one every instance shares"),
        log);
  }

  @Test
  void theNodesOfOneClusterAreOneDeployment() throws Exception {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(3)) {
      ServerSightings sightings = new ServerSightings();
      FleetRedis where = FleetRedis.discovered(sightings);
      for (int node = 0; node < cluster.size(); node++) {
        sightings.sighted(cluster.endpoint(node));
      }
      String log = String.join("\n", Stderr.of(where::current));
      assertTrue(log.contains("fleet counts go to the Cluster of "), log);
      assertTrue(where.current() != null, log);
    }
  }
}
