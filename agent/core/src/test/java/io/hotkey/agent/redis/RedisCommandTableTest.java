package io.hotkey.agent.redis;

import static io.hotkey.agent.redis.CommandSpec.Kind.CACHEABLE_READ;
import static io.hotkey.agent.redis.CommandSpec.Kind.NO_KEYS;
import static io.hotkey.agent.redis.CommandSpec.Kind.READ;
import static io.hotkey.agent.redis.CommandSpec.Kind.WRITE;
import static io.hotkey.agent.redis.CommandSpec.Kind.WRITE_ALL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.redis.CommandSpec.Kind;
import io.hotkey.agent.redis.CommandSpec.Session;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RedisCommandTableTest {

  // ---- helpers ------------------------------------------------------------------------------

  /** "MSET k1 v1" → argv; a token "<empty>" stands for an empty argument. */
  static byte[][] argv(String cmd) {
    String[] parts = cmd.split(" ");
    byte[][] argv = new byte[parts.length][];
    for (int i = 0; i < parts.length; i++) {
      argv[i] =
          parts[i].equals("<empty>") ? new byte[0] : parts[i].getBytes(StandardCharsets.UTF_8);
    }
    return argv;
  }

  static CommandSpec spec(byte[][] argv) {
    return RedisCommandTable.lookup(argv[0]);
  }

  /** The name as UTF-8 bytes, as a client sends it. */
  static CommandSpec lookup(String name) {
    return RedisCommandTable.lookup(name == null ? null : name.getBytes(StandardCharsets.UTF_8));
  }

  /** The subcommand's spec for a container with a known subcommand, else the command's. */
  static CommandSpec resolve(byte[][] argv) {
    CommandSpec spec = spec(argv);
    CommandSpec sub = spec.subcommand(argv);
    return sub != null ? sub : spec;
  }

  /** Key indexes of the command line, via the top-level spec (what the core calls). */
  static List<Integer> keyIdx(String cmd) {
    byte[][] a = argv(cmd);
    CommandSpec s = spec(a);
    int n = s.keyCount(a);
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(s.keyIndex(a, i));
    }
    // the resolved subcommand spec must agree with its container
    CommandSpec r = resolve(a);
    assertEquals(n, r.keyCount(a), cmd);
    for (int i = 0; i < n; i++) {
      assertEquals(out.get(i), r.keyIndex(a, i), cmd);
    }
    return out;
  }

  static void assertKeys(String cmd, Integer... expected) {
    assertEquals(List.of(expected), keyIdx(cmd), cmd);
  }

  static Kind kindOf(String cmd) {
    byte[][] a = argv(cmd);
    return spec(a).kind(a);
  }

  static void assertKind(Kind kind, String... names) {
    for (String name : names) {
      CommandSpec s = lookup(name);
      assertNotSame(RedisCommandTable.UNKNOWN, s, name + " should be known");
      assertEquals(name, s.name());
      assertEquals(kind, s.kind(), name);
    }
  }

  // ---- classification ----------------------------------------------------------------------

  @Test
  void cacheableReads() {
    assertKind(
        CACHEABLE_READ,
        "GET",
        "MGET",
        "STRLEN",
        "GETRANGE",
        "SUBSTR",
        "GETBIT",
        "BITCOUNT",
        "BITPOS",
        "BITFIELD_RO",
        "LCS",
        "HGET",
        "HMGET",
        "HGETALL",
        "HEXISTS",
        "HKEYS",
        "HVALS",
        "HLEN",
        "HSTRLEN",
        "LRANGE",
        "LLEN",
        "LINDEX",
        "LPOS",
        "SMEMBERS",
        "SISMEMBER",
        "SMISMEMBER",
        "SCARD",
        "SINTER",
        "SUNION",
        "SDIFF",
        "SINTERCARD",
        "ZRANGE",
        "ZRANGEBYSCORE",
        "ZREVRANGE",
        "ZREVRANGEBYSCORE",
        "ZRANGEBYLEX",
        "ZREVRANGEBYLEX",
        "ZSCORE",
        "ZMSCORE",
        "ZCARD",
        "ZCOUNT",
        "ZLEXCOUNT",
        "ZRANK",
        "ZREVRANK",
        "ZUNION",
        "ZINTER",
        "ZDIFF",
        "ZINTERCARD",
        "EXISTS",
        "TYPE");
    // every form stays cacheable
    assertEquals(CACHEABLE_READ, kindOf("ZRANGE z (1 +inf BYSCORE REV LIMIT 0 10 WITHSCORES"));
    assertEquals(CACHEABLE_READ, kindOf("ZRANGE z [a [z BYLEX"));
    assertEquals(CACHEABLE_READ, kindOf("ZRANK z m WITHSCORE"));
    assertEquals(CACHEABLE_READ, kindOf("zrevrank z m withscore"));
  }

  @Test
  void nonCacheableReads() {
    assertKind(
        READ,
        "TTL",
        "PTTL",
        "EXPIRETIME",
        "PEXPIRETIME",
        "DUMP",
        "TOUCH",
        "SRANDMEMBER",
        "RANDOMKEY",
        "HRANDFIELD",
        "ZRANDMEMBER",
        "SCAN",
        "SSCAN",
        "HSCAN",
        "ZSCAN",
        "KEYS",
        "SORT_RO",
        "HTTL",
        "HPTTL",
        "HEXPIRETIME",
        "HPEXPIRETIME",
        "XLEN",
        "XRANGE",
        "XREVRANGE",
        "XPENDING",
        "XREAD",
        "GEODIST",
        "GEOHASH",
        "GEOPOS",
        "GEOSEARCH",
        "GEORADIUS_RO",
        "GEORADIUSBYMEMBER_RO",
        "EVAL_RO",
        "EVALSHA_RO",
        "FCALL_RO",
        "WATCH",
        "OBJECT",
        "XINFO",
        "MEMORY");
    for (String sub : new String[] {"ENCODING", "FREQ", "IDLETIME", "REFCOUNT"}) {
      byte[][] a = argv("OBJECT " + sub + " k");
      assertEquals(READ, spec(a).kind(a), sub);
      assertEquals("OBJECT " + sub, resolve(a).name());
    }
    assertEquals(READ, kindOf("XINFO STREAM s FULL"));
    assertEquals(READ, kindOf("MEMORY USAGE k SAMPLES 5"));
  }

  @Test
  void writes() {
    assertKind(
        WRITE,
        // strings and bitmaps
        "SET",
        "SETNX",
        "SETEX",
        "PSETEX",
        "MSET",
        "MSETNX",
        "APPEND",
        "SETRANGE",
        "INCR",
        "INCRBY",
        "INCRBYFLOAT",
        "DECR",
        "DECRBY",
        "GETEX",
        "GETDEL",
        "GETSET",
        "SETBIT",
        "BITFIELD",
        "BITOP",
        // hashes (incl. field expiration, Redis 7.4 / 8.0)
        "HSET",
        "HSETNX",
        "HMSET",
        "HDEL",
        "HINCRBY",
        "HINCRBYFLOAT",
        "HEXPIRE",
        "HPEXPIRE",
        "HEXPIREAT",
        "HPEXPIREAT",
        "HPERSIST",
        "HGETEX",
        "HGETDEL",
        "HSETEX",
        // lists
        "LPUSH",
        "RPUSH",
        "LPUSHX",
        "RPUSHX",
        "LPOP",
        "RPOP",
        "LINSERT",
        "LSET",
        "LREM",
        "LTRIM",
        "LMOVE",
        "RPOPLPUSH",
        "LMPOP",
        "BLPOP",
        "BRPOP",
        "BLMOVE",
        "BRPOPLPUSH",
        "BLMPOP",
        // sets
        "SADD",
        "SREM",
        "SPOP",
        "SMOVE",
        "SINTERSTORE",
        "SUNIONSTORE",
        "SDIFFSTORE",
        // sorted sets
        "ZADD",
        "ZINCRBY",
        "ZREM",
        "ZREMRANGEBYLEX",
        "ZREMRANGEBYRANK",
        "ZREMRANGEBYSCORE",
        "ZPOPMIN",
        "ZPOPMAX",
        "BZPOPMIN",
        "BZPOPMAX",
        "ZMPOP",
        "BZMPOP",
        "ZRANGESTORE",
        "ZUNIONSTORE",
        "ZINTERSTORE",
        "ZDIFFSTORE",
        // streams
        "XADD",
        "XDEL",
        "XTRIM",
        "XACK",
        "XCLAIM",
        "XAUTOCLAIM",
        "XSETID",
        "XREADGROUP",
        "XGROUP",
        "XACKDEL",
        "XDELEX",
        // HyperLogLog, geo
        "PFADD",
        "PFMERGE",
        "PFCOUNT",
        "PFDEBUG",
        "GEOADD",
        "GEORADIUS",
        "GEORADIUSBYMEMBER",
        "GEOSEARCHSTORE",
        // keyspace
        "DEL",
        "UNLINK",
        "EXPIRE",
        "PEXPIRE",
        "EXPIREAT",
        "PEXPIREAT",
        "PERSIST",
        "COPY",
        "RENAME",
        "RENAMENX",
        "RESTORE",
        "RESTORE-ASKING",
        "SORT",
        // scripting
        "EVAL",
        "EVALSHA",
        "FCALL");
    for (String sub :
        new String[] {"CREATE", "CREATECONSUMER", "DELCONSUMER", "DESTROY", "SETID"}) {
      assertEquals(WRITE, kindOf("XGROUP " + sub + " s g x"), sub);
    }
    assertEquals(NO_KEYS, kindOf("XGROUP HELP"));
  }

  @Test
  void writeAll() {
    assertKind(
        WRITE_ALL,
        "FLUSHALL",
        "FLUSHDB",
        "SWAPDB",
        "SFLUSH",
        "DEBUG",
        "REPLICAOF",
        "SLAVEOF",
        "FAILOVER",
        "SHUTDOWN",
        "MOVE",
        "MIGRATE");
    // scripts that declare no key may write any key
    assertEquals(WRITE_ALL, kindOf("EVAL script 0"));
    assertEquals(WRITE_ALL, kindOf("EVALSHA abc 0 x y"));
    assertEquals(WRITE_ALL, kindOf("FCALL f 0"));
    assertEquals(WRITE_ALL, kindOf("EVAL s notanumber k"));
    assertEquals(WRITE_ALL, kindOf("EVAL s"));
    assertEquals(WRITE, kindOf("EVAL s 1 k a"));
    assertEquals(WRITE, kindOf("fcall f 2 k1 k2 a"));
    // read-only scripts cannot write
    assertEquals(READ, kindOf("EVAL_RO s 0"));
    assertEquals(READ, kindOf("FCALL_RO f 0"));
    // COPY into another database
    assertEquals(WRITE_ALL, kindOf("COPY a b DB 3"));
    assertEquals(WRITE_ALL, kindOf("COPY a b REPLACE db 3"));
    assertEquals(WRITE, kindOf("COPY a b REPLACE"));
    assertEquals(WRITE, kindOf("COPY a b"));
  }

  @Test
  void noKeys() {
    assertKind(
        NO_KEYS,
        "PING",
        "ECHO",
        "AUTH",
        "HELLO",
        "QUIT",
        "RESET",
        "SELECT",
        "INFO",
        "TIME",
        "DBSIZE",
        "LASTSAVE",
        "SAVE",
        "BGSAVE",
        "BGREWRITEAOF",
        "ROLE",
        "LOLWUT",
        "MONITOR",
        "SYNC",
        "PSYNC",
        "REPLCONF",
        "WAIT",
        "WAITAOF",
        "MULTI",
        "EXEC",
        "DISCARD",
        "UNWATCH",
        "PUBLISH",
        "SPUBLISH",
        "SUBSCRIBE",
        "PSUBSCRIBE",
        "SSUBSCRIBE",
        "UNSUBSCRIBE",
        "PUNSUBSCRIBE",
        "SUNSUBSCRIBE",
        "PUBSUB",
        "ASKING",
        "READONLY",
        "READWRITE",
        "SENTINEL",
        "PFSELFTEST",
        "CLIENT",
        "CONFIG",
        "COMMAND",
        "ACL",
        "CLUSTER",
        "LATENCY",
        "MODULE",
        "SLOWLOG",
        "SCRIPT",
        "FUNCTION");
    String[] lines = {
      "CLIENT SETNAME x",
      "CLIENT TRACKING ON BCAST PREFIX a",
      "CLIENT LIST",
      "CONFIG SET a b",
      "CONFIG GET maxmemory",
      "COMMAND",
      "COMMAND GETKEYS SET k v",
      "COMMAND INFO get",
      "ACL WHOAMI",
      "CLUSTER SLOTS",
      "CLUSTER KEYSLOT k",
      "SCRIPT LOAD x",
      "SCRIPT FLUSH",
      "FUNCTION LOAD x",
      "FUNCTION FLUSH",
      "PUBSUB CHANNELS",
      "SLOWLOG GET 10",
      "MEMORY STATS",
      "MODULE LIST",
      "LATENCY LATEST",
      "SPUBLISH ch msg",
      "SSUBSCRIBE a b",
      "PUBLISH ch m"
    };
    for (String l : lines) {
      assertEquals(NO_KEYS, kindOf(l), l);
      assertEquals(0, keyIdx(l).size(), l);
    }
  }

  @Test
  void everyListedNameIsKnownAndCanonical() {
    for (CommandSpec s : RedisCommandTable.all()) {
      assertSame(s, lookup(s.name()));
      assertSame(
          s,
          RedisCommandTable.lookup(
              s.name().toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII)));
      for (CommandSpec sub : s.subcommands()) {
        String[] p = sub.name().split(" ");
        byte[][] a =
            argv(p[0].toLowerCase(Locale.ROOT) + " " + p[1].toLowerCase(Locale.ROOT) + " x y z");
        assertSame(sub, resolve(a), sub.name());
        assertSame(sub, s.subcommand(a));
        assertTrue(
            RedisCommandTable.rank(sub.kind()) <= RedisCommandTable.rank(s.kind()), sub.name());
      }
    }
    assertTrue(RedisCommandTable.all().size() > 230);
  }

  /** Upper-case names match exactly, any other case folding it; both find the same spec. */
  @Test
  void everyNameIsFoundInUpperAndMixedCase() {
    for (CommandSpec s : RedisCommandTable.all()) {
      byte[] upper = s.name().getBytes(StandardCharsets.US_ASCII);
      byte[] mixed = upper.clone();
      mixed[mixed.length - 1] = (byte) Character.toLowerCase(mixed[mixed.length - 1]);
      assertSame(s, RedisCommandTable.lookup(upper), s.name());
      assertSame(s, RedisCommandTable.lookup(mixed), s.name());
    }
    byte[] reused = "GET".getBytes(StandardCharsets.US_ASCII);
    assertEquals("GET", RedisCommandTable.lookup(reused).name());
    reused[0] = 'S';
    assertEquals(
        "SET", RedisCommandTable.lookup(reused).name(), "the same array, now spelling SET");
    reused[0] = 'X';
    assertSame(RedisCommandTable.UNKNOWN, RedisCommandTable.lookup(reused));
  }

  // ---- case-insensitivity and unknown commands
  // ---------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"get", "GET", "Get", "gEt"})
  void caseInsensitive(String name) {
    CommandSpec s = lookup(name);
    assertEquals("GET", s.name());
    assertSame(s, RedisCommandTable.lookup(name.getBytes(StandardCharsets.US_ASCII)));
  }

  @Test
  void caseInsensitiveEverywhere() {
    assertSame(lookup("ZUNIONSTORE"), lookup("zUnIoNsToRe"));
    assertSame(lookup("RESTORE-ASKING"), lookup("restore-asking"));
    assertSame(lookup("GEORADIUSBYMEMBER_RO"), lookup("georadiusbymember_ro"));
    assertEquals("OBJECT ENCODING", resolve(argv("object encoding k")).name());
    assertEquals(
        Session.CLIENT_TRACKING,
        spec(argv("client tracking on")).session(argv("client tracking on")));
    assertKeys("xread count 2 streams a b 0 0", 4, 5);
    assertKeys("sort k limit 0 1 store d", 1, 6);
    assertKeys("migrate h 1 <empty> 0 5 keys a b", 7, 8);
    assertKeys("georadius g 1 2 3 km storedist d", 1, 7);
  }

  @Test
  void unknownCommandsWriteEveryArgument() {
    for (String line :
        new String[] {
          "JSON.SET doc $ 1",
          "FT.SEARCH idx q",
          "VADD vs VALUES 1 0.5 e",
          "FOO a b c",
          "STRALGO LCS KEYS a b"
        }) {
      byte[][] a = argv(line);
      CommandSpec s = RedisCommandTable.lookup(a[0]);
      assertSame(RedisCommandTable.UNKNOWN, s, line);
      assertEquals(WRITE, s.kind());
      assertEquals(WRITE, s.kind(a));
      assertEquals(a.length - 1, s.keyCount(a));
      for (int i = 0; i < a.length - 1; i++) {
        assertEquals(i + 1, s.keyIndex(a, i));
      }
      assertEquals(Session.NONE, s.session(a));
    }
    assertSame(RedisCommandTable.UNKNOWN, RedisCommandTable.lookup((byte[]) null));
    assertSame(RedisCommandTable.UNKNOWN, RedisCommandTable.lookup(new byte[0]));
    assertSame(RedisCommandTable.UNKNOWN, lookup(""));
    assertSame(RedisCommandTable.UNKNOWN, lookup("gét"));
    assertSame(RedisCommandTable.UNKNOWN, lookup("GET "));
    assertSame(RedisCommandTable.UNKNOWN, lookup("GETT"));
    assertSame(RedisCommandTable.UNKNOWN, lookup("OBJECT ENCODING"));
    assertSame(RedisCommandTable.UNKNOWN, lookup("X".repeat(33)));
    assertNull(RedisCommandTable.lookup(argv("OBJECT")[0]).subcommand(null));
    assertNull(RedisCommandTable.lookup(argv("OBJECT")[0]).subcommand(new byte[0][]));
  }

  @Test
  void unknownSubcommandsAreWritesToTheirArguments() {
    byte[][] a = argv("OBJECT NEWTHING k1 k2");
    CommandSpec s = spec(a);
    assertEquals(WRITE, s.kind(a));
    assertKeys("OBJECT NEWTHING k1 k2", 2, 3);
    assertKeys("CLUSTER SLOT-STATS SLOTSRANGE 0 10", 2, 3, 4);
    assertEquals(WRITE, kindOf("CLIENT FUTURE x"));
    assertSame(s, resolve(a));
    // container alone: Redis answers an arity error
    assertEquals(READ, kindOf("OBJECT"));
    assertKeys("OBJECT");
  }

  // ---- key positions: fixed ranges
  // ---------------------------------------------------------------

  @Test
  void fixedRanges() {
    assertKeys("GET k", 1);
    assertKeys("HGET h f", 1);
    assertKeys("SET k v EX 10 NX GET", 1);
    assertKeys("MGET a b c", 1, 2, 3);
    assertKeys("MSET a 1 b 2 c 3", 1, 3, 5);
    assertKeys("MSETNX a 1 b 2", 1, 3);
    assertKeys("DEL a b", 1, 2);
    assertKeys("EXISTS a a b", 1, 2, 3);
    assertKeys("WATCH a b c", 1, 2, 3);
    assertKeys("TOUCH a b", 1, 2);
    assertKeys("BLPOP a b 0", 1, 2);
    assertKeys("BRPOP a 1.5", 1);
    assertKeys("BZPOPMIN a b c 0", 1, 2, 3);
    assertKeys("BITOP AND dest s1 s2 s3", 2, 3, 4, 5);
    assertKeys("BITOP NOT dest s1", 2, 3);
    assertKeys("COPY src dst DB 2 REPLACE", 1, 2);
    assertKeys("RENAME a b", 1, 2);
    assertKeys("RENAMENX a b", 1, 2);
    assertKeys("SMOVE s d m", 1, 2);
    assertKeys("LMOVE s d LEFT RIGHT", 1, 2);
    assertKeys("BLMOVE s d LEFT RIGHT 0", 1, 2);
    assertKeys("RPOPLPUSH s d", 1, 2);
    assertKeys("BRPOPLPUSH s d 0", 1, 2);
    assertKeys("GEOSEARCHSTORE d s FROMMEMBER m BYRADIUS 1 km STOREDIST", 1, 2);
    assertKeys("ZRANGESTORE d s 0 -1", 1, 2);
    assertKeys("SINTERSTORE d a b", 1, 2, 3);
    assertKeys("SUNIONSTORE d a", 1, 2);
    assertKeys("SDIFFSTORE d a b c", 1, 2, 3, 4);
    assertKeys("SINTER a b", 1, 2);
    assertKeys("PFMERGE d a b", 1, 2, 3);
    assertKeys("PFMERGE d", 1);
    assertKeys("PFCOUNT a b", 1, 2);
    assertKeys("PFDEBUG GETREG h", 2);
    assertKeys("LCS a b IDX MINMATCHLEN 4", 1, 2);
    assertKeys("SORT_RO k BY w_* GET # STORE x", 1);
    assertKeys("MOVE k 3", 1);
    assertKeys("HGETEX h EX 10 FIELDS 2 a b", 1);
    assertKeys("HSETEX h FNX KEEPTTL FIELDS 1 f v", 1);
    assertKeys("XACKDEL s g ACKED IDS 1 0-1", 1);
    assertKeys("SPUBLISH ch msg");
    assertKeys("SSUBSCRIBE ch1 ch2");
    assertKeys("PING");
  }

  @Test
  void subcommandKeysAtArgv2() {
    assertKeys("OBJECT ENCODING k", 2);
    assertKeys("OBJECT FREQ k", 2);
    assertKeys("object idletime k", 2);
    assertKeys("OBJECT REFCOUNT k", 2);
    assertKeys("OBJECT HELP");
    assertKeys("MEMORY USAGE k SAMPLES 0", 2);
    assertKeys("MEMORY STATS");
    assertKeys("XINFO STREAM s FULL COUNT 10", 2);
    assertKeys("XINFO GROUPS s", 2);
    assertKeys("XINFO CONSUMERS s g", 2);
    assertKeys("XGROUP CREATE s g $ MKSTREAM", 2);
    assertKeys("XGROUP SETID s g 0", 2);
    assertKeys("XGROUP DESTROY s g", 2);
    assertKeys("XGROUP CREATECONSUMER s g c", 2);
    assertKeys("XGROUP DELCONSUMER s g c", 2);
  }

  // ---- key positions: movable keys
  // ------------------------------------------------------------------

  @Test
  void scripts() {
    assertKeys("EVAL script 2 k1 k2 a1 a2", 3, 4);
    assertKeys("EVALSHA sha 1 k1 a1", 3);
    assertKeys("EVAL_RO script 3 k1 k2 k3", 3, 4, 5);
    assertKeys("EVALSHA_RO sha 1 k", 3);
    assertKeys("FCALL fn 2 k1 k2 a", 3, 4);
    assertKeys("FCALL_RO fn 1 k a b", 3);
    assertKeys("EVAL script 0 a b");
    // Redis rejects these without running anything
    assertKeys("EVAL script 3 k1 k2");
    assertKeys("EVAL script -1 k1");
    assertKeys("EVAL script 01 k1");
    assertKeys("EVAL script +1 k1");
    assertKeys("EVAL script 99999999999999999999999 k1");
    assertKeys("EVAL script");
  }

  @Test
  void numkeysFamilies() {
    assertKeys("ZUNIONSTORE d 2 a b WEIGHTS 1 2 AGGREGATE MAX", 1, 3, 4);
    assertKeys("ZINTERSTORE d 1 a", 1, 3);
    assertKeys("ZDIFFSTORE d 3 a b c", 1, 3, 4, 5);
    assertKeys("ZUNIONSTORE d 0 a");
    assertKeys("ZUNIONSTORE d 3 a b");
    assertKeys("ZUNION 2 a b WITHSCORES", 2, 3);
    assertKeys("ZINTER 3 a b c AGGREGATE SUM", 2, 3, 4);
    assertKeys("ZDIFF 1 a", 2);
    assertKeys("ZINTERCARD 2 a b LIMIT 10", 2, 3);
    assertKeys("SINTERCARD 2 a b LIMIT 5", 2, 3);
    assertKeys("LMPOP 2 a b LEFT COUNT 3", 2, 3);
    assertKeys("ZMPOP 1 z MIN", 2);
    assertKeys("BLMPOP 0.5 2 a b RIGHT", 3, 4);
    assertKeys("BZMPOP 0 3 a b c MAX COUNT 2", 3, 4, 5);
    assertKeys("BLMPOP 0 x a b");
  }

  @Test
  void streams() {
    assertKeys("XREAD STREAMS a 0", 2);
    assertKeys("XREAD COUNT 10 BLOCK 0 STREAMS a b c $ $ $", 6, 7, 8);
    assertKeys("XREAD STREAMS streams streams 0 0", 2, 3);
    assertKeys("XREADGROUP GROUP g c COUNT 1 BLOCK 10 NOACK STREAMS s1 s2 > >", 10, 11);
    assertKeys("XREADGROUP GROUP streams streams STREAMS k >", 5);
    // syntax errors: odd remainder, no STREAMS, unknown option
    assertKeys("XREAD STREAMS a b 0");
    assertKeys("XREAD COUNT 10 a 0");
    assertKeys("XREAD STREAMS");
    assertKeys("XREAD FOO STREAMS a 0");
  }

  @Test
  void sortStore() {
    assertKeys("SORT k", 1);
    assertKeys("SORT k ALPHA DESC", 1);
    assertKeys("SORT k STORE d", 1, 3);
    assertKeys("SORT k BY w_* LIMIT 0 10 GET # GET o_* ASC STORE d", 1, 13);
    assertKeys("SORT k BY store", 1);
    assertKeys("SORT k GET store LIMIT 0 1", 1);
    assertKeys("SORT k STORE d1 STORE d2", 1, 5);
    assertKeys("SORT k STORE", 1);
    assertKeys("SORT");
  }

  @Test
  void migrate() {
    assertKeys("MIGRATE host 6379 k 0 5000", 3);
    assertKeys("MIGRATE host 6379 k 0 5000 COPY REPLACE", 3);
    assertKeys("MIGRATE host 6379 <empty> 0 5000 KEYS a b c", 7, 8, 9);
    assertKeys("MIGRATE host 6379 <empty> 0 5000 COPY AUTH keys KEYS a", 10);
    assertKeys("MIGRATE host 6379 <empty> 0 5000 AUTH2 keys keys KEYS a b", 10, 11);
    assertKeys("MIGRATE host 6379 k 0 5000 KEYS a b"); // syntax error in Redis
    assertKeys("MIGRATE host 6379 <empty> 0 5000 KEYS");
    assertKeys("MIGRATE host");
  }

  @Test
  void georadiusStore() {
    assertKeys("GEORADIUS g 15 37 200 km WITHDIST", 1);
    assertKeys("GEORADIUS g 15 37 200 km STORE d", 1, 7);
    assertKeys("GEORADIUS g 15 37 200 km COUNT 3 STOREDIST d", 1, 9);
    assertKeys("GEORADIUS g 15 37 200 km STORE d1 STOREDIST d2", 1, 9);
    assertKeys("GEORADIUSBYMEMBER g m 100 km STORE d", 1, 6);
    assertKeys("GEORADIUSBYMEMBER g m 100 km", 1);
    assertKeys("GEORADIUS_RO g 15 37 200 km", 1);
  }

  // ---- sessions and blocking --------------------------------------------------------------------

  @Test
  void sessions() {
    String[][] cases = {
      {"MULTI", "MULTI"},
      {"EXEC", "EXEC"},
      {"DISCARD", "DISCARD"},
      {"WATCH a b", "WATCH"},
      {"UNWATCH", "UNWATCH"},
      {"SELECT 2", "SELECT"},
      {"HELLO 3 AUTH u p", "HELLO"},
      {"RESET", "RESET"},
      {"CLIENT TRACKING ON BCAST", "CLIENT_TRACKING"},
      {"client Tracking off", "CLIENT_TRACKING"},
      {"SUBSCRIBE a", "SUBSCRIBE"},
      {"PSUBSCRIBE a*", "SUBSCRIBE"},
      {"SSUBSCRIBE a", "SUBSCRIBE"},
      {"UNSUBSCRIBE", "SUBSCRIBE"},
      {"PUNSUBSCRIBE", "SUBSCRIBE"},
      {"SUNSUBSCRIBE a", "SUBSCRIBE"},
      {"MONITOR", "MONITOR"},
      {"CLIENT TRACKINGINFO", "NONE"},
      {"CLIENT SETNAME x", "NONE"},
      {"CLIENT", "NONE"},
      {"GET k", "NONE"},
      {"EVAL s 0", "NONE"},
      {"FOO", "NONE"},
    };
    for (String[] c : cases) {
      byte[][] a = argv(c[0]);
      assertEquals(Session.valueOf(c[1]), spec(a).session(a), c[0]);
      assertEquals(Session.valueOf(c[1]), resolve(a).session(a), c[0]);
    }
  }

  @Test
  void blocking() {
    for (String n :
        new String[] {
          "BLPOP",
          "BRPOP",
          "BRPOPLPUSH",
          "BLMOVE",
          "BLMPOP",
          "BZPOPMIN",
          "BZPOPMAX",
          "BZMPOP",
          "XREAD",
          "XREADGROUP",
          "WAIT",
          "WAITAOF"
        }) {
      assertTrue(lookup(n).blocking(), n);
    }
    for (String n :
        new String[] {
          "GET",
          "LPOP",
          "LMPOP",
          "ZMPOP",
          "RPOPLPUSH",
          "LMOVE",
          "EVAL",
          "SUBSCRIBE",
          "MONITOR",
          "CLIENT",
          "XRANGE"
        }) {
      assertFalse(lookup(n).blocking(), n);
    }
    byte[][] nb = argv("XREAD COUNT 1 STREAMS s 0");
    byte[][] b = argv("XREAD COUNT 1 BLOCK 0 STREAMS s 0");
    byte[][] g = argv("xreadgroup group g c block 100 streams s >");
    byte[][] gn = argv("XREADGROUP GROUP block block STREAMS s >");
    assertFalse(spec(nb).blocking(nb));
    assertTrue(spec(b).blocking(b));
    assertTrue(spec(g).blocking(g));
    assertFalse(spec(gn).blocking(gn));
    byte[][] bl = argv("BLPOP a 0");
    assertTrue(spec(bl).blocking(bl));
  }

  // ---- robustness
  // ---------------------------------------------------------------------------------

  @Test
  void malformedArgvNeverThrows() {
    String[] tokens = {
      "k",
      "0",
      "1",
      "2",
      "3",
      "-1",
      "99",
      "abc",
      "",
      "STORE",
      "STOREDIST",
      "KEYS",
      "STREAMS",
      "BLOCK",
      "COUNT",
      "GROUP",
      "LIMIT",
      "GET",
      "BY",
      "AUTH",
      "AUTH2",
      "DB",
      "TRACKING",
      "ENCODING",
      "USAGE"
    };
    Random rnd = new Random(42);
    List<String> names = new ArrayList<>();
    for (CommandSpec s : RedisCommandTable.all()) {
      names.add(s.name());
    }
    names.add("NOPE");
    for (String name : names) {
      CommandSpec s = lookup(name);
      assertNotNull(s.kind(null));
      assertEquals(0, s.keyCount(null), name);
      assertEquals(-1, s.keyIndex(null, 0), name);
      s.session(null);
      s.blocking(null);
      assertEquals(0, s.keyCount(new byte[0][]), name);
      s.kind(new byte[0][]);
      s.session(new byte[0][]);
      for (int iter = 0; iter < 300; iter++) {
        int len = 1 + rnd.nextInt(10);
        byte[][] a = new byte[len][];
        a[0] = name.getBytes(StandardCharsets.US_ASCII);
        for (int i = 1; i < len; i++) {
          a[i] =
              rnd.nextInt(20) == 0
                  ? null
                  : tokens[rnd.nextInt(tokens.length)].getBytes(StandardCharsets.US_ASCII);
        }
        int n = s.keyCount(a);
        assertTrue(n >= 0 && n < len, name);
        int prev = 0;
        for (int i = 0; i < n; i++) {
          int idx = s.keyIndex(a, i);
          assertTrue(idx > prev && idx < len, name + " key " + i + " at " + idx);
          prev = idx;
        }
        assertEquals(-1, s.keyIndex(a, n));
        assertEquals(-1, s.keyIndex(a, -1));
        assertNotNull(s.kind(a));
        assertNotNull(s.session(a));
        s.blocking(a);
        assertNotNull(resolve(a));
      }
    }
  }

  @Test
  void tooFewArgumentsYieldWhatIsPresent() {
    assertKeys("GET");
    assertKeys("MGET");
    assertKeys("MSET a", 1);
    assertKeys("MSET a 1 b", 1, 3);
    assertKeys("RENAME a", 1);
    assertKeys("BITOP AND");
    assertKeys("BLPOP a");
    assertKeys("ZUNIONSTORE d");
    assertKeys("ZUNION");
    assertKeys("XREADGROUP GROUP g");
    assertKeys("OBJECT ENCODING");
    assertKeys("GEORADIUS");
  }

  // ---- allocation
  // -----------------------------------------------------------------------------------

  @Test
  void knownLookupsAllocateNothing() {
    java.lang.management.ThreadMXBean std = ManagementFactory.getThreadMXBean();
    if (!(std instanceof com.sun.management.ThreadMXBean mx)) {
      return;
    }

    if (!mx.isThreadAllocatedMemorySupported()) {
      return;
    }
    mx.setThreadAllocatedMemoryEnabled(true);
    byte[][][] lines = {
      argv("get k"),
      argv("HGETALL h"),
      argv("zunionstore d 2 a b"),
      argv("EVAL s 2 a b x"),
      argv("XREAD COUNT 1 BLOCK 0 STREAMS a b 0 0"),
      argv("SORT k LIMIT 0 1 STORE d"),
      argv("MIGRATE h 1 <empty> 0 5 AUTH p KEYS a b"),
      argv("GEORADIUS g 1 2 3 km STORE d"),
      argv("object encoding k"),
      argv("client tracking on"),
      argv("MSET a 1 b 2"),
      argv("COPY a b DB 1"),
    };
    byte[][] names =
        argv("get HGETALL zUnionStore EVAL XREAD SORT MIGRATE GEORADIUS"); // names alone
    long sink = run(lines, names, 20_000); // warm up (JIT)
    long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
    sink += run(lines, names, 100_000);
    long allocated = mx.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
    assertTrue(sink != 42);
    assertTrue(allocated < 4096, "allocated " + allocated + " bytes over 100k rounds");
  }

  // the ordinals only feed a sink that keeps the lookups from being optimized away
  @SuppressWarnings("EnumOrdinal")
  private static long run(byte[][][] lines, byte[][] names, int rounds) {
    long sink = 0;
    for (int r = 0; r < rounds; r++) {
      for (byte[][] a : lines) {
        CommandSpec s = RedisCommandTable.lookup(a[0]);
        int n = s.keyCount(a);
        for (int i = 0; i < n; i++) {
          sink += s.keyIndex(a, i);
        }
        sink += s.kind(a).ordinal() + s.session(a).ordinal() + (s.blocking(a) ? 1 : 0);
        CommandSpec sub = s.subcommand(a);
        sink += (sub != null ? sub : s).kind().ordinal();
      }
      for (byte[] name : names) {
        sink += RedisCommandTable.lookup(name).kind().ordinal();
      }
    }
    return sink;
  }
}
