package io.hotkey.demo.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import redis.clients.jedis.Jedis;

/**
 * A plain application (no framework) whose first act is one GET, for {@link StartupBench}: a batch
 * job or a CLI that starts its client at once pays the whole of the agent's start before its first
 * command. It prints {@link #ANSWERED} as soon as the GET's answer is back, then closes and exits.
 *
 * <pre>
 * java -cp hotkey-demo.jar io.hotkey.demo.bench.FirstGetApp lettuce|jedis host port key
 * </pre>
 */
public final class FirstGetApp {
  /** The line printed when the first GET is answered, which the driver times. */
  static final String ANSWERED = "first GET answered: ";

  private FirstGetApp() {}

  public static void main(String[] args) {
    String client = args[0];
    String host = args[1];
    int port = Integer.parseInt(args[2]);
    String key = args[3];
    if (client.equals("lettuce")) {
      RedisClient redis = RedisClient.create("redis://" + host + ":" + port);
      try (StatefulRedisConnection<String, String> connection = redis.connect()) {
        System.out.println(ANSWERED + connection.sync().get(key));
      } finally {
        redis.shutdown();
      }
    } else if (client.equals("jedis")) {
      try (Jedis jedis = new Jedis(host, port)) {
        System.out.println(ANSWERED + jedis.get(key));
      }
    } else {
      throw new IllegalArgumentException("lettuce or jedis, not " + client);
    }
  }
}
