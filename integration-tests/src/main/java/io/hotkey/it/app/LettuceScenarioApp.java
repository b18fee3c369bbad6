package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;
import static io.hotkey.it.app.Child.sync;

import io.hotkey.it.app.ProductJsonCodec.Product;
import io.hotkey.it.app.results.LettuceScenarioResults;
import io.hotkey.it.app.results.RunResults;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.reactive.RedisReactiveCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServerFactory;

/**
 * Scenario app on Lettuce 6.x/7.x (compiled against 7.7, using API common to both); String, byte[]
 * and an application's own JSON codec ({@link ProductJsonCodec}).
 *
 * <p>Usage: {@code --scenario serve|ryw|traced-ryw|attach-ryw|cluster|compat --redis host:port |
 * --nodes h:p,h:p,h:p [--n N] [--millis M]}. The {@code compat} scenario uses only API that Lettuce
 * 5.3 shares with 6 and 7 (it also runs on 5.x).
 */
public final class LettuceScenarioApp {
  static final String STR = "lt:str";
  static final String HASH = "lt:hash";
  static final String LIST = "lt:list";
  static final Map<String, String> HASH_VALUE = new LinkedHashMap<>();
  static final List<String> LIST_VALUE = List.of("a", "b", "c", "d", "e");
  // values of an application codec (JSON): escapes, non-ASCII, empty strings and lists
  static final String JSON = "lt:json";
  static final String JSON_HASH = "lt:json:hash";
  static final String JSON_LIST = "lt:json:list";
  static final Product P1 =
      new Product(
          "p-1",
          "Caf\u00e9 \"cr\u00e8me\" \u2615 \\ 1/2",
          1299,
          List.of("hot", "\u65e5\u672c", "two\nlines"));
  static final Product P2 = new Product("p-2", "tea", 350, List.of());
  static final Product P3 = new Product("p-3", "", 0, List.of("a"));
  static final Map<String, Product> JSON_HASH_VALUE = new LinkedHashMap<>();

  static {
    HASH_VALUE.put("f1", "one");
    HASH_VALUE.put("f2", "two");
    HASH_VALUE.put("f3", "three");
    JSON_HASH_VALUE.put("a", P1);
    JSON_HASH_VALUE.put("b", P2);
  }

  private LettuceScenarioApp() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Child.parseArgs(args);
    result(RunResults.JAVA_VERSION, System.getProperty("java.version"));
    int n = Integer.parseInt(a.getOrDefault("n", "1000"));
    switch (a.get("scenario")) {
      case "serve" -> serve(a.get("redis"), n);
      case "ryw" ->
          LettuceReadYourWritesScenario.run(
              a.get("redis"), Long.parseLong(a.getOrDefault("millis", "3000")), false, false);
      case "traced-ryw" ->
          LettuceReadYourWritesScenario.run(
              a.get("redis"), Long.parseLong(a.getOrDefault("millis", "3000")), false, true);
      case "attach-ryw" ->
          LettuceReadYourWritesScenario.run(
              a.get("redis"), Long.parseLong(a.getOrDefault("millis", "3000")), true, false);
      case "cluster" -> LettuceClusterScenario.run(a.get("nodes"), n);
      case "compat" -> compat(a.get("redis"), n);
      default -> throw new IllegalArgumentException("unknown scenario " + a.get("scenario"));
    }
    result(RunResults.DONE, true);
    System.exit(0);
  }

  static RedisURI uri(String address) {
    String[] hp = address.split(":");
    return RedisURI.create(hp[0], Integer.parseInt(hp[1]));
  }

  // ---------------------------------------------------------------------------------------------
  // serve: sync, async and reactive GET/HGETALL/LRANGE of hot keys, String and byte[] codecs

  static final class Mismatches {
    final AtomicLong count = new AtomicLong();
    final List<String> examples = Collections.synchronizedList(new ArrayList<>());
    final Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    long sharedObjects;

    void check(String what, Object expected, Object actual) {
      Object e = normalize(expected);
      Object v = normalize(actual);
      if (!e.equals(v)) {
        count.incrementAndGet();
        if (examples.size() < 5) {
          examples.add(what + ": expected " + e + " got " + v);
        }
      }
      if (actual != null && !(actual instanceof String) && !seen.add(actual)) {
        sharedObjects++;
      }
    }

    /**
     * An application codec's result: equal to {@code expected} by {@code equals} (no text form),
     * and no object in it (the result, its elements, their fields) was handed to a caller before.
     * Then the caller scribbles over every {@link Product} it got, as an application may: a shared
     * one would spoil later reads.
     */
    void checkDecoded(String what, Object expected, Object actual) {
      if (!Objects.equals(expected, actual)) {
        count.incrementAndGet();
        if (examples.size() < 5) {
          examples.add(what + ": expected " + expected + " got " + actual);
        }
      }
      fresh(actual);
      scribble(actual);
    }

    private void fresh(Object o) {
      if (o == null || o instanceof String) {
        return;
      }
      if (!seen.add(o)) {
        sharedObjects++;
      }
      if (o instanceof Map) {
        ((Map<?, ?>) o).values().forEach(this::fresh);
      } else if (o instanceof Collection) {
        ((Collection<?>) o).forEach(this::fresh);
      } else if (o instanceof Product product) {
        fresh(product.tags);
      }
    }

    private static void scribble(Object o) {
      if (o instanceof Product product) {
        product.scribble();
      } else if (o instanceof Map) {
        ((Map<?, ?>) o).values().forEach(Mismatches::scribble);
      } else if (o instanceof Collection) {
        ((Collection<?>) o).forEach(Mismatches::scribble);
      }
    }

    static Object normalize(Object o) {
      if (o instanceof byte[] array) {
        return new String(array, StandardCharsets.UTF_8);
      }
      if (o instanceof Map) {
        Map<Object, Object> m = new java.util.TreeMap<>();
        ((Map<?, ?>) o).forEach((k, v) -> m.put(normalize(k), normalize(v)));
        return m;
      }
      if (o instanceof List) {
        List<Object> l = new ArrayList<>();
        ((List<?>) o).forEach(x -> l.add(normalize(x)));
        return l;
      }
      return String.valueOf(o);
    }
  }

  static Map<Object, Object> pairs(List<? extends KeyValue<?, ?>> kvs) {
    Map<Object, Object> m = new LinkedHashMap<>();
    for (KeyValue<?, ?> kv : kvs) {
      m.put(kv.getKey(), kv.getValue());
    }
    return m;
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static void serve(String address, int n) throws Exception {
    RedisClient client = RedisClient.create(uri(address));
    ProductJsonCodec codec = new ProductJsonCodec();
    try (StatefulRedisConnection<String, String> conn = client.connect();
        StatefulRedisConnection<byte[], byte[]> bin = client.connect(ByteArrayCodec.INSTANCE);
        StatefulRedisConnection<String, Product> json = client.connect(codec)) {
      RedisCommands<String, String> s = conn.sync();
      RedisAsyncCommands<String, String> as = conn.async();
      RedisReactiveCommands<String, String> rx = conn.reactive();
      RedisCommands<byte[], byte[]> bs = bin.sync();
      RedisAsyncCommands<byte[], byte[]> bas = bin.async();
      RedisReactiveCommands<byte[], byte[]> brx = bin.reactive();
      RedisCommands<String, Product> js = json.sync();
      RedisAsyncCommands<String, Product> jas = json.async();
      RedisReactiveCommands<String, Product> jrx = json.reactive();
      writeValues(s, js);
      // long enough for the agent, started by now, to have looked for a server once
      Thread.sleep(1_000);
      result(
          LettuceScenarioResults.SERVE_MBEAN_SERVER_BEFORE_JMX,
          !MBeanServerFactory.findMBeanServer(null).isEmpty());
      Child.warmUp(
          LettuceScenarioResults.SERVE_WARMUP,
          List.of(STR, HASH, LIST, JSON, JSON_HASH, JSON_LIST),
          () -> {
            s.get(STR);
            s.hgetall(HASH);
            s.lrange(LIST, 0, -1);
            readJsonValues(js);
          },
          8000,
          3000);
      // let the first fills land, so the measured phase is served
      for (int i = 0; i < 50; i++) {
        s.get(STR);
        s.hgetall(HASH);
        s.lrange(LIST, 0, -1);
        bs.get(b(STR));
        bs.hgetall(b(HASH));
        bs.lrange(b(LIST), 0, -1);
        readJsonValues(js);
      }
      Mismatches m = new Mismatches();
      sync("serve");
      for (int i = 0; i < n; i++) {
        checkStringReads(m, s, as, rx);
        m.check("async hgetall", HASH_VALUE, as.hgetall(HASH).get(5, TimeUnit.SECONDS));
        m.check("reactive hgetall", HASH_VALUE, pairs(rx.hgetall(HASH).collectList().block()));
        m.check("sync lrange", LIST_VALUE, s.lrange(LIST, 0, -1));
        m.check("async lrange", LIST_VALUE, as.lrange(LIST, 0, -1).get(5, TimeUnit.SECONDS));
        m.check("reactive lrange", LIST_VALUE, rx.lrange(LIST, 0, -1).collectList().block());
        m.check("bytes sync get", "hello-lettuce", bs.get(b(STR)));
        m.check("bytes async get", "hello-lettuce", bas.get(b(STR)).get(5, TimeUnit.SECONDS));
        m.check("bytes reactive get", "hello-lettuce", brx.get(b(STR)).block());
        m.check("bytes sync hgetall", HASH_VALUE, bs.hgetall(b(HASH)));
        m.check(
            "bytes async lrange", LIST_VALUE, bas.lrange(b(LIST), 0, -1).get(5, TimeUnit.SECONDS));
      }
      sync("serve-done");
      result(LettuceScenarioResults.SERVE_READS, 14L * n);
      result(LettuceScenarioResults.SERVE_MISMATCHES, m.count.get());
      result(LettuceScenarioResults.SERVE_EXAMPLES, m.examples);
      result(LettuceScenarioResults.SERVE_SHARED_OBJECTS, m.sharedObjects);

      // the application's own JSON codec: the truth is what Redis returns inside MULTI (never
      // answered
      // locally), decoded by the same codec; every read must equal it and be the caller's own
      // object
      js.multi();
      readJsonValues(js);
      TransactionResult truth = js.exec();
      Product truthStr = truth.get(0);
      Map<String, Product> truthHash = truth.get(1);
      List<Product> truthList = truth.get(2);
      result(
          LettuceScenarioResults.JSON_TRUTH_IS_WHAT_WAS_WRITTEN,
          P1.equals(truthStr)
              && JSON_HASH_VALUE.equals(truthHash)
              && List.of(P1, P2, P3).equals(truthList));
      Mismatches jm = new Mismatches();
      long decodesBefore = codec.decodes.get();
      sync("json");
      for (int i = 0; i < n; i++) {
        jm.checkDecoded("json sync get", truthStr, js.get(JSON));
        jm.checkDecoded("json async get", truthStr, jas.get(JSON).get(5, TimeUnit.SECONDS));
        jm.checkDecoded("json reactive get", truthStr, jrx.get(JSON).block());
        jm.checkDecoded("json sync hgetall", truthHash, js.hgetall(JSON_HASH));
        jm.checkDecoded(
            "json async hgetall", truthHash, jas.hgetall(JSON_HASH).get(5, TimeUnit.SECONDS));
        jm.checkDecoded(
            "json reactive hgetall",
            truthHash,
            pairs(jrx.hgetall(JSON_HASH).collectList().block()));
        jm.checkDecoded("json sync lrange", truthList, js.lrange(JSON_LIST, 0, -1));
        jm.checkDecoded(
            "json async lrange", truthList, jas.lrange(JSON_LIST, 0, -1).get(5, TimeUnit.SECONDS));
        jm.checkDecoded(
            "json reactive lrange", truthList, jrx.lrange(JSON_LIST, 0, -1).collectList().block());
      }
      sync("json-done");
      result(LettuceScenarioResults.JSON_READS, 9L * n);
      // 3 GETs, 3 HGETALLs of 2 fields, 3 LRANGEs of 3 elements per round
      result(LettuceScenarioResults.JSON_PRODUCTS, (3L + 3 * 2 + 3 * 3) * n);
      result(LettuceScenarioResults.JSON_DECODES, codec.decodes.get() - decodesBefore);
      result(LettuceScenarioResults.JSON_MISMATCHES, jm.count.get());
      result(LettuceScenarioResults.JSON_EXAMPLES, jm.examples);
      result(LettuceScenarioResults.JSON_SHARED_OBJECTS, jm.sharedObjects);

      // transactions and manual flushing: never answered locally
      sync("untouched");
      for (int i = 0; i < n / 10; i++) {
        s.multi();
        s.get(STR);
        m.check(
            "exec",
            List.of("hello-lettuce"),
            s.exec().stream().collect(java.util.stream.Collectors.toList()));
      }
      try (StatefulRedisConnection<String, String> manual = client.connect()) {
        manual.setAutoFlushCommands(false);
        List<RedisFuture<String>> futures = new ArrayList<>();
        for (int i = 0; i < n / 10; i++) {
          futures.add(manual.async().get(STR));
        }
        manual.flushCommands();
        for (RedisFuture<String> f : futures) {
          m.check("manual flush get", "hello-lettuce", f.get(5, TimeUnit.SECONDS));
        }
      }
      sync("untouched-done");
      result(LettuceScenarioResults.UNTOUCHED_GETS, 2L * (n / 10));

      // writes invalidate at once, whatever the API
      s.set(STR, "v2");
      m.check("after sync set", "v2", s.get(STR));
      m.check("after sync set, bytes", "v2", bs.get(b(STR)));
      as.set(STR, "v3").get(5, TimeUnit.SECONDS);
      m.check("after async set", "v3", rx.get(STR).block());
      rx.hset(HASH, "f1", "uno").block();
      m.check("after reactive hset", "uno", s.hgetall(HASH).get("f1"));
      bs.rpush(b(LIST), b("f"));
      m.check("after bytes rpush", 6, s.lrange(LIST, 0, -1).size());
      s.multi();
      s.set(STR, "v4");
      s.exec();
      m.check("after multi set", "v4", as.get(STR).get(5, TimeUnit.SECONDS));
      jrx.set(JSON, P2).block();
      m.checkDecoded("after json reactive set", P2, jas.get(JSON).get(5, TimeUnit.SECONDS));
      js.hset(JSON_HASH, "b", P3);
      m.checkDecoded("after json hset", P3, js.hgetall(JSON_HASH).get("b"));
      jas.lset(JSON_LIST, 0, P3).get(5, TimeUnit.SECONDS);
      m.checkDecoded(
          "after json async lset",
          List.of(P3, P2, P3),
          jrx.lrange(JSON_LIST, 0, -1).collectList().block());
      result(LettuceScenarioResults.FINAL_MISMATCHES, m.count.get());
      result(LettuceScenarioResults.FINAL_EXAMPLES, m.examples);
      Child.reportJmx(LettuceScenarioResults.SERVE_JMX);
    } finally {
      client.shutdown();
    }
  }

  /** GET through sync, async and reactive, and a sync HGETALL, of the String-codec keys. */
  static void checkStringReads(
      Mismatches m,
      RedisCommands<String, String> s,
      RedisAsyncCommands<String, String> as,
      RedisReactiveCommands<String, String> rx)
      throws Exception {
    m.check("sync get", "hello-lettuce", s.get(STR));
    m.check("async get", "hello-lettuce", as.get(STR).get(5, TimeUnit.SECONDS));
    m.check("reactive get", "hello-lettuce", rx.get(STR).block());
    m.check("sync hgetall", HASH_VALUE, s.hgetall(HASH));
  }

  /** The String-codec keys and the JSON keys, from scratch. */
  static void writeValues(RedisCommands<String, String> s, RedisCommands<String, Product> js) {
    s.del(STR, HASH, LIST, JSON, JSON_HASH, JSON_LIST);
    s.set(STR, "hello-lettuce");
    s.hset(HASH, HASH_VALUE);
    s.rpush(LIST, LIST_VALUE.toArray(new String[0]));
    js.set(JSON, P1);
    js.hset(JSON_HASH, JSON_HASH_VALUE);
    js.rpush(JSON_LIST, P1, P2, P3);
  }

  /** GET, HGETALL and LRANGE of the JSON keys (inside MULTI these queue and return null). */
  static void readJsonValues(RedisCommands<String, Product> js) {
    js.get(JSON);
    js.hgetall(JSON_HASH);
    js.lrange(JSON_LIST, 0, -1);
  }

  // ---------------------------------------------------------------------------------------------
  // compat: only API that Lettuce 5.3 shares with 6.x and 7.x. Reads of the same keys at a hot rate
  // through
  // sync, async and reactive, String and JSON codecs; then writes by every API, MULTI/EXEC and
  // manual
  // flushing, each read back at once. No warm-up through JMX (on 5.x no key ever becomes hot).

  /** {@link #writeValues} with field-by-field HSETs (HSET of a map is Lettuce 5.3+). */
  static void writeCompatValues(
      RedisCommands<String, String> s, RedisCommands<String, Product> js) {
    s.del(STR, HASH, LIST, JSON, JSON_HASH, JSON_LIST);
    s.set(STR, "hello-lettuce");
    HASH_VALUE.forEach((field, value) -> s.hset(HASH, field, value));
    s.rpush(LIST, LIST_VALUE.toArray(new String[0]));
    js.set(JSON, P1);
    JSON_HASH_VALUE.forEach((field, value) -> js.hset(JSON_HASH, field, value));
    js.rpush(JSON_LIST, P1, P2, P3);
  }

  static void compat(String address, int n) throws Exception {
    RedisClient client = RedisClient.create(uri(address));
    try (StatefulRedisConnection<String, String> conn = client.connect();
        StatefulRedisConnection<String, Product> json = client.connect(new ProductJsonCodec())) {
      RedisCommands<String, String> s = conn.sync();
      RedisAsyncCommands<String, String> as = conn.async();
      RedisReactiveCommands<String, String> rx = conn.reactive();
      RedisCommands<String, Product> js = json.sync();
      RedisAsyncCommands<String, Product> jas = json.async();
      writeCompatValues(s, js);
      Mismatches m = new Mismatches();
      sync("compat");
      for (int i = 0; i < n; i++) {
        checkStringReads(m, s, as, rx);
        m.check("async lrange", LIST_VALUE, as.lrange(LIST, 0, -1).get(5, TimeUnit.SECONDS));
        m.check("reactive lrange", LIST_VALUE, rx.lrange(LIST, 0, -1).collectList().block());
        m.checkDecoded("json sync get", P1, js.get(JSON));
        m.checkDecoded(
            "json async lrange",
            List.of(P1, P2, P3),
            jas.lrange(JSON_LIST, 0, -1).get(5, TimeUnit.SECONDS));
      }
      sync("compat-done");
      result(LettuceScenarioResults.COMPAT_READS, 8L * n);
      result(LettuceScenarioResults.COMPAT_GETS, 4L * n);
      s.set(STR, "v2");
      m.check("after sync set", "v2", rx.get(STR).block());
      as.set(STR, "v3").get(5, TimeUnit.SECONDS);
      m.check("after async set", "v3", s.get(STR));
      rx.set(STR, "v4").block();
      m.check("after reactive set", "v4", as.get(STR).get(5, TimeUnit.SECONDS));
      s.multi();
      s.set(STR, "v5");
      s.exec();
      m.check("after multi set", "v5", s.get(STR));
      jas.set(JSON, P2).get(5, TimeUnit.SECONDS);
      m.checkDecoded("after json async set", P2, js.get(JSON));
      try (StatefulRedisConnection<String, String> manual = client.connect()) {
        manual.setAutoFlushCommands(false);
        RedisFuture<String> set = manual.async().set(STR, "v6");
        RedisFuture<String> get = manual.async().get(STR);
        manual.flushCommands();
        set.get(5, TimeUnit.SECONDS);
        m.check("manual flush get after set", "v6", get.get(5, TimeUnit.SECONDS));
      }
      m.check("after manual flush set", "v6", as.get(STR).get(5, TimeUnit.SECONDS));
      compatPipeline(client, m);
      compatForeignWrite(m, s, as, rx);
      result(LettuceScenarioResults.COMPAT_MISMATCHES, m.count.get());
      result(LettuceScenarioResults.COMPAT_EXAMPLES, m.examples);
      result(LettuceScenarioResults.COMPAT_SHARED_OBJECTS, m.sharedObjects);
      Child.reportJmx(LettuceScenarioResults.COMPAT_JMX);
    } finally {
      client.shutdown();
    }
  }

  static final int COMPAT_PIPELINED = 50;
  static final int COMPAT_SERVED = 200;

  /** Reads of the hot list pipelined on a connection that flushes by hand: none may be served. */
  static void compatPipeline(RedisClient client, Mismatches m) throws Exception {
    sync("compat-pipeline");
    try (StatefulRedisConnection<String, String> manual = client.connect()) {
      manual.setAutoFlushCommands(false);
      List<RedisFuture<List<String>>> pipelined = new ArrayList<>();
      for (int i = 0; i < COMPAT_PIPELINED; i++) {
        pipelined.add(manual.async().lrange(LIST, 0, -1));
      }
      manual.flushCommands();
      for (RedisFuture<List<String>> read : pipelined) {
        m.check("pipelined lrange", LIST_VALUE, read.get(5, TimeUnit.SECONDS));
      }
    }
    sync("compat-pipeline-done");
    result(LettuceScenarioResults.COMPAT_PIPELINED_READS, (long) COMPAT_PIPELINED);
  }

  /**
   * The hot list read through every API (served), then appended to by the test's own process at
   * SYNC compat-foreign: read until the append shows (tracking's invalidation is asynchronous),
   * each read either the old list or the new one, and never the old one again once the new showed.
   * Then this process sets one of its elements, read back at once by every API.
   */
  static void compatForeignWrite(
      Mismatches m,
      RedisCommands<String, String> s,
      RedisAsyncCommands<String, String> as,
      RedisReactiveCommands<String, String> rx)
      throws Exception {
    sync("compat-served");
    for (int i = 0; i < COMPAT_SERVED; i++) {
      m.check("served lrange", LIST_VALUE, readList(i, s, as, rx));
    }
    result(LettuceScenarioResults.COMPAT_SERVED_READS, (long) COMPAT_SERVED);
    sync("compat-foreign");
    List<String> appended = new ArrayList<>(LIST_VALUE);
    appended.add("foreign");
    long start = System.nanoTime();
    long seenMillis = -1;
    for (int i = 0;
        seenMillis < 0 && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10);
        i++) {
      List<String> read = readList(i, s, as, rx);
      if (read.equals(appended)) {
        seenMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      } else {
        m.check("lrange before the foreign write shows", LIST_VALUE, read);
        Thread.sleep(1);
      }
    }
    for (int i = 0; seenMillis >= 0 && i < COMPAT_SERVED; i++) {
      m.check("lrange after the foreign write showed", appended, readList(i, s, as, rx));
    }
    result(LettuceScenarioResults.COMPAT_FOREIGN_WRITE_MILLIS, seenMillis);
    // this process's write of more than a key and a value (its arguments encoded at dispatch)
    s.lset(LIST, 0, "local");
    appended.set(0, "local");
    for (int i = 0; i < 3; i++) {
      m.check("lrange after lset", appended, readList(i, s, as, rx));
    }
  }

  /** LRANGE of the whole hot list, by the sync, async and reactive API in turn. */
  static List<String> readList(
      int i,
      RedisCommands<String, String> s,
      RedisAsyncCommands<String, String> as,
      RedisReactiveCommands<String, String> rx)
      throws Exception {
    return switch (i % 3) {
      case 0 -> s.lrange(LIST, 0, -1);
      case 1 -> as.lrange(LIST, 0, -1).get(5, TimeUnit.SECONDS);
      default -> rx.lrange(LIST, 0, -1).collectList().block();
    };
  }
}
