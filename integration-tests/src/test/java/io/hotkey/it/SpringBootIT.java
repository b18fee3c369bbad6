package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientPauseMode;

/**
 * A real Spring Boot 3 web application (spring-boot-app/: Tomcat, spring-boot-starter-data-redis,
 * StringRedisTemplate, {@code @Cacheable} on Boot's RedisCacheManager, actuator + Prometheus),
 * packaged as an executable fat jar and run with {@code java -javaagent:hotkey-agent.jar -jar},
 * once on Lettuce (Boot's default) and once on Jedis ({@code spring.data.redis.client-type=jedis},
 * a jar without Lettuce). Over HTTP: a hammered key is promoted; afterwards Redis' GET calls (INFO
 * commandstats) nearly stop while every answer stays correct; a write through the application is
 * read back at once; {@code @Cacheable} keeps its semantics (computed once, @CachePut
 * and @CacheEvict seen at once) while its Redis entry is served locally; and the application's own
 * {@code /actuator/prometheus} shows the agent's meters.
 */
class SpringBootIT extends RedisTestBase {
  static final String HOT = "product:hot";
  static final String SKU = "sku-1";
  static final String PRICE_KEY = "prices::" + SKU;
  static final int THREADS = 4;
  static final int MEASURED = 1200;

  /** What the agent runs with here: a hundred reads a second make a key hot. */
  static final Map<String, String> PROPERTIES =
      Map.of(
          "hotkey.detect.threshold",
          "100",
          "hotkey.detect.window",
          "1s",
          "hotkey.report.interval",
          "0");

  @ParameterizedTest(name = "spring boot on {0}")
  @ValueSource(strings = {"lettuce", "jedis"})
  void hotKeysOfABootApplicationAreServedLocallyAndMetered(String client) throws Exception {
    Path jar = SpringBootApp.jar(client);
    assertHoldsOnlyItsClient(jar, client);
    List<String> args =
        new ArrayList<>(
            List.of(
                "--spring.data.redis.host=" + redis.host(),
                "--spring.data.redis.port=" + redis.port()));
    if (client.equals("jedis")) {
      args.add("--spring.profiles.active=jedis");
    }
    try (SpringBootApp app =
        SpringBootApp.start("boot-" + client, jar, PROPERTIES, args.toArray(String[]::new))) {
      app.awaitReady(Duration.ofSeconds(150));
      proveHotKeysServedAndMetered(app, redis, client);
    }
  }

  /** The fat jar holds {@code client} ("lettuce" or "jedis") and not the other one. */
  static void assertHoldsOnlyItsClient(Path jar, String client) throws IOException {
    List<String> libs = SpringBootApp.libs(jar);
    String other = client.equals("lettuce") ? "jedis-" : "lettuce-core-";
    assertTrue(
        libs.stream()
            .anyMatch(l -> l.startsWith(client.equals("lettuce") ? "lettuce-core-" : "jedis-")),
        () -> jar + " lacks its client: " + libs);
    assertFalse(
        libs.stream().anyMatch(l -> l.startsWith(other)),
        () -> jar + " must not hold " + other + libs);
  }

  /**
   * The checks of the class comment, on the application started with {@link #PROPERTIES} against
   * {@code redis} on {@code client} ("lettuce" or "jedis"), which must not have served a request
   * yet.
   */
  static void proveHotKeysServedAndMetered(SpringBootApp app, RedisServer redis, String client)
      throws Exception {
    try (Jedis j = redis.jedis()) {
      j.set(HOT, "v1");
      j.set("base:" + SKU, "21");
    }
    String describeAtStart = app.describe();
    ChildRun start = app.snapshot();
    assertTrue(start.agentActiveLine(), () -> "no [hotkey] active line" + describeAtStart);
    assertEquals(
        client.equals("lettuce") ? "LettuceConnectionFactory" : "JedisConnectionFactory",
        app.body("/client"),
        () -> "Boot wired another client" + describeAtStart);

    // 1. hammer one key over HTTP (StringRedisTemplate GET) until the agent promotes it
    try (Load load = new Load(app, "/kv/" + HOT, "v1")) {
      assertTrue(
          app.awaitAgentLine(
              "^\\[hotkey\\] hot key promoted: key=\"" + Pattern.quote(HOT) + "\"",
              Duration.ofSeconds(40)),
          () -> "not promoted after " + load.done() + " requests" + app.describe());
      Thread.sleep(300);

      // 2. while it is hot, Redis stops seeing its GETs and every answer is still right
      long gets0 = redis.calls("get");
      long done0 = load.done();
      load.awaitDone(done0 + MEASURED, Duration.ofSeconds(40));
      long gets1 = redis.calls("get");
      long requests = load.done() - done0;
      long reached = gets1 - gets0;
      // 3. the application's own Prometheus endpoint, scraped while the key is being hammered
      String prometheus = app.body("/actuator/prometheus");
      load.stop();
      System.out.println(
          "[it] boot "
              + client
              + ": "
              + reached
              + " of "
              + requests
              + " HTTP reads of the hot key reached Redis; "
              + load.summary());
      assertEquals(0, load.wrong(), () -> "wrong answers: " + load.examples() + app.describe());
      assertTrue(
          requests >= MEASURED / 2,
          () -> "only " + requests + " requests measured" + app.describe());
      assertTrue(
          reached <= requests / 20 + 2,
          () -> reached + " of " + requests + " reads reached Redis" + app.describe());

      double rate = sample(prometheus, "hotkey_key_rate\\{key=\"" + Pattern.quote(HOT) + "\"\\}");
      double hits = sample(prometheus, "hotkey_cache_hits_total");
      double readCommands = sample(prometheus, "hotkey_commands_total\\{kind=\"read\"\\}");
      String meters =
          prometheus
              .lines()
              .filter(l -> l.startsWith("hotkey_"))
              .reduce("", (a, b) -> a + "\n  " + b);
      System.out.println("[it] boot " + client + ": /actuator/prometheus:" + meters);
      assertTrue(
          rate > 0,
          () -> "no hotkey_key_rate{key=\"" + HOT + "\"} > 0 in /actuator/prometheus:" + meters);
      assertTrue(
          hits >= requests - reached - 5,
          () -> "hotkey_cache_hits_total " + hits + " < " + (requests - reached) + meters);
      assertTrue(
          readCommands >= requests,
          () -> "hotkey_commands_total{kind=read} " + readCommands + meters);
      assertEquals(
          0.0, sample(prometheus, "hotkey_agent_errors_total"), () -> "agent errors" + meters);
    }

    // 4. writes through the application are read back at once, while the key is hot and served
    // locally
    for (int i = 2; i <= 21; i++) {
      String value = "v" + i;
      assertEquals(200, app.put("/kv/" + HOT, value).statusCode());
      assertEquals(
          value,
          app.body("/kv/" + HOT),
          () -> "write of " + value + " not read back" + app.describe());
    }
    try (Jedis j = redis.jedis()) {
      assertEquals("v21", j.get(HOT));
    }
    try (Load load = new Load(app, "/kv/" + HOT, "v21")) {
      long gets0 = redis.calls("get");
      long done0 = load.done();
      load.awaitDone(done0 + 400, Duration.ofSeconds(30));
      long reached = redis.calls("get") - gets0;
      long requests = load.done() - done0;
      load.stop();
      assertEquals(0, load.wrong(), () -> "wrong answers after the writes: " + load.examples());
      assertTrue(
          reached <= requests / 10 + 2,
          () ->
              "after the writes "
                  + reached
                  + " of "
                  + requests
                  + " reads reached Redis"
                  + app.describe());
    }

    // 5. @Cacheable on Boot's RedisCacheManager: its Redis entry becomes hot and is served
    // locally,
    //    while the cache keeps its semantics
    assertEquals("price=42 computed=1", app.body("/price/" + SKU));
    try (Load load = new Load(app, "/price/" + SKU, "price=42 computed=1")) {
      assertTrue(
          app.awaitAgentLine(
              "^\\[hotkey\\] hot key promoted: key=\"" + Pattern.quote(PRICE_KEY) + "\"",
              Duration.ofSeconds(40)),
          () -> "cache entry not promoted after " + load.done() + app.describe());
      Thread.sleep(300);
      long gets0 = redis.calls("get");
      long done0 = load.done();
      load.awaitDone(done0 + 400, Duration.ofSeconds(30));
      long reached = redis.calls("get") - gets0;
      long requests = load.done() - done0;
      load.stop();
      System.out.println(
          "[it] boot "
              + client
              + ": @Cacheable: "
              + reached
              + " of "
              + requests
              + " cache lookups reached Redis; "
              + load.summary());
      assertEquals(
          0, load.wrong(), () -> "@Cacheable answers: " + load.examples() + app.describe());
      assertTrue(
          reached <= requests / 10 + 2,
          () -> reached + " of " + requests + " cache lookups reached Redis" + app.describe());
    }
    // the PUT answers once Redis applied its SET (the app's CacheWrites): with Redis holding writes
    // back, it answers only after them, and the next read gets the new value. A cache that returns
    // before its write (Spring Data Redis 4's default) is read old here, with or without the agent.
    try (Jedis j = redis.jedis()) {
      j.clientPause(300, ClientPauseMode.WRITE);
    }
    assertEquals("price=99", app.put("/price/" + SKU, "99").body());
    assertEquals(
        "price=99 computed=1",
        app.body("/price/" + SKU),
        () -> "@CachePut not seen" + app.describe());
    assertEquals(200, app.delete("/price/" + SKU).statusCode());
    assertEquals(
        "price=42 computed=2",
        app.body("/price/" + SKU),
        () -> "@CacheEvict not seen" + app.describe());
    assertEquals("price=42 computed=2", app.body("/price/" + SKU));

    // 6. the generic RedisTemplate (JDK serialization, HSET/HGETALL) is untouched
    assertEquals(200, app.put("/profile/7/name", "Ada").statusCode());
    assertEquals("{\"name\":\"Ada\"}", app.body("/profile/7"));

    ChildRun end = app.snapshot();
    assertTrue(
        end.stderr().stream().noneMatch(l -> l.contains("[hotkey] internal error")),
        () -> "agent internal errors" + end.describe());
    assertTrue(end.misprefixedHotkeyLines().isEmpty(), () -> "misprefixed lines" + end.describe());
  }

  /**
   * The value of one Prometheus sample line {@code name{labels} value}; NaN when absent. Micrometer
   * before 1.13 (Boot 2.7's) writes a comma after the last label, {@code name{a="b",} value}.
   */
  static double sample(String exposition, String nameAndLabelsRegex) {
    Matcher m =
        Pattern.compile("(?m)^" + nameAndLabelsRegex + " (\\S+)$")
            .matcher(exposition.replace(",} ", "} "));
    return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
  }

  /**
   * THREADS threads GETting one path until stopped, checking every answer against the expected
   * body.
   */
  static final class Load implements AutoCloseable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong wrong = new AtomicLong();
    private final ConcurrentLinkedQueue<String> examples = new ConcurrentLinkedQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    private final long started = System.nanoTime();

    Load(SpringBootApp app, String path, String expected) {
      for (int t = 0; t < THREADS; t++) {
        Thread thread =
            new Thread(
                () -> {
                  while (running.get()) {
                    String got;
                    try {
                      var r = app.get(path);
                      got = r.statusCode() + " " + r.body();
                    } catch (Exception e) {
                      got = e.toString();
                    }
                    if (!got.equals("200 " + expected)) {
                      if (wrong.incrementAndGet() <= 5) {
                        examples.add(got);
                      }
                    }
                    done.incrementAndGet();
                  }
                },
                "load-" + t);
        thread.setDaemon(true);
        thread.start();
        threads.add(thread);
      }
    }

    long done() {
      return done.get();
    }

    long wrong() {
      return wrong.get();
    }

    List<String> examples() {
      return new ArrayList<>(examples);
    }

    void awaitDone(long count, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (done.get() < count && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
    }

    String summary() {
      long ms = (System.nanoTime() - started) / 1_000_000;
      return done.get()
          + " requests in "
          + ms
          + "ms ("
          + (ms == 0 ? 0 : done.get() * 1000 / ms)
          + "/s)";
    }

    void stop() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) {
        t.join(30_000);
      }
    }

    @Override
    public void close() throws InterruptedException {
      stop();
    }
  }
}
