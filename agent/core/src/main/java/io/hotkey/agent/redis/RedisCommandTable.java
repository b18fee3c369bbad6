package io.hotkey.agent.redis;

import static io.hotkey.agent.redis.CommandSpec.Kind.CACHEABLE_READ;
import static io.hotkey.agent.redis.CommandSpec.Kind.NO_KEYS;
import static io.hotkey.agent.redis.CommandSpec.Kind.READ;
import static io.hotkey.agent.redis.CommandSpec.Kind.WRITE;
import static io.hotkey.agent.redis.CommandSpec.Kind.WRITE_ALL;

import io.hotkey.agent.redis.CommandSpec.Blocking;
import io.hotkey.agent.redis.CommandSpec.Kind;
import io.hotkey.agent.redis.CommandSpec.KindRefinement;
import io.hotkey.agent.redis.CommandSpec.Session;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The Redis command table: every command of Redis 7.x (plus the Redis 7.4/8.0 hash-field-expiry
 * commands and the Redis 8.2 stream XACKDEL/XDELEX) with its kind, key positions, blocking flag and
 * session effect. Key positions are those of Redis' own key specs (src/commands/*.json) and getkeys
 * procedures (db.c).
 *
 * <p>Lookups are case-insensitive (ASCII) and allocation-free: an open-addressing table keyed by
 * the upper-cased name bytes. Unknown commands (module commands such as JSON.*, FT.*, V*, or
 * commands newer than this table) get {@link #UNKNOWN}: kind WRITE, every argument a key.
 */
public final class RedisCommandTable {

  /** Shared spec of every unknown command: a write to every argument. */
  public static final CommandSpec UNKNOWN =
      new CommandSpec(
          "UNKNOWN", WRITE, KindRefinement.NONE, Session.NONE, Blocking.NEVER, KeySpec.allFrom(1));

  private static final int SLOTS = 1024; // power of two, > 2.5x the number of commands
  private static final int LONGEST_NAME = 32;
  private static final CommandSpec[] TABLE = new CommandSpec[SLOTS];
  private static final List<CommandSpec> ALL;

  private RedisCommandTable() {}

  /**
   * The spec of command {@code name} (any case). Never null; {@link #UNKNOWN} when not a known
   * command.
   */
  public static CommandSpec lookup(byte[] name) {
    if (name == null || name.length == 0 || name.length > LONGEST_NAME) {
      return UNKNOWN;
    }
    int slot = probe(name);
    return slot >= 0 ? TABLE[slot] : UNKNOWN;
  }

  /** Every known top-level command spec (containers include their subcommands), in table order. */
  static List<CommandSpec> all() {
    return ALL;
  }

  /**
   * The slot of the spec named {@code name} in any ASCII case, or {@code -1 - slot} of the free
   * slot where it would go. Clients send names in upper case, so each candidate is first compared
   * exactly (a JIT intrinsic), and folding case only when that fails.
   */
  private static int probe(byte[] name) {
    for (int i = firstSlot(name); ; i = (i + 1) & (SLOTS - 1)) {
      CommandSpec spec = TABLE[i];
      if (spec == null) {
        return -1 - i;
      }
      if (Arrays.equals(name, spec.upperName) || Bytes.eqIgnoreCase(name, spec.upperName)) {
        return i;
      }
    }
  }

  /**
   * Where the probe for {@code name} starts: a hash of its bytes with bit 5 cleared, which maps
   * lower-case ASCII letters onto upper-case ones, so that a name hashes alike in any case.
   */
  private static int firstSlot(byte[] name) {
    int h = 0;
    for (byte b : name) {
      h = 31 * h + (b & 0xDF);
    }
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    return h & (SLOTS - 1);
  }

  private static void put(CommandSpec spec) {
    int slot = probe(spec.upperName);
    if (slot >= 0) {
      throw new IllegalStateException("duplicate command " + spec.name());
    }
    TABLE[-1 - slot] = spec;
  }

  // ---- builder ----------------------------------------------------------------------------

  private static final class B {
    final String name;
    final Kind kind;
    KeySpec keys = KeySpec.NONE;
    Blocking blocking = Blocking.NEVER;
    Session session = Session.NONE;
    KindRefinement refinement = KindRefinement.NONE;

    B(String name, Kind kind) {
      this.name = name;
      this.kind = kind;
    }

    B range(int first, int last, int step) {
      return keys(KeySpec.range(first, last, step));
    }

    B key(int index) {
      return range(index, index, 1);
    }

    /** numkeys at {@code numkeysIndex}, that many keys after it. */
    B numKeys(int numkeysIndex) {
      return keys(KeySpec.numKeys(numkeysIndex, false));
    }

    /** A destination key at argv[1], then numkeys at {@code numkeysIndex} and the keys after it. */
    B destinationAndNumKeys(int numkeysIndex) {
      return keys(KeySpec.numKeys(numkeysIndex, true));
    }

    B keys(KeySpec spec) {
      keys = spec;
      return this;
    }

    B blocking() {
      return blocking(Blocking.ALWAYS);
    }

    B blocking(Blocking b) {
      blocking = b;
      return this;
    }

    B session(Session s) {
      session = s;
      return this;
    }

    B refine(KindRefinement r) {
      refinement = r;
      return this;
    }

    CommandSpec build(String prefix) {
      String full = prefix == null ? name : prefix + " " + name;
      return new CommandSpec(full, kind, refinement, session, blocking, keys);
    }
  }

  private static B c(String name, Kind kind) {
    return new B(name, kind);
  }

  /** A single-key command with the key at argv[1]. */
  private static B k1(String name, Kind kind) {
    return new B(name, kind).key(1);
  }

  private static void add(List<CommandSpec> all, B... bs) {
    for (B b : bs) {
      all.add(b.build(null));
    }
  }

  private static void container(List<CommandSpec> all, String name, B... subs) {
    CommandSpec[] specs = new CommandSpec[subs.length];
    Kind max = NO_KEYS;
    for (int i = 0; i < subs.length; i++) {
      specs[i] = subs[i].build(name);
      if (rank(specs[i].kind()) > rank(max)) {
        max = specs[i].kind();
      }
    }
    all.add(
        new CommandSpec(
            name,
            max,
            KindRefinement.SUBCOMMAND,
            Session.NONE,
            Blocking.NEVER,
            KeySpec.subcommands(specs)));
  }

  /** NO_KEYS < CACHEABLE_READ < READ < WRITE < WRITE_ALL: how careful the agent must be. */
  static int rank(Kind k) {
    switch (k) {
      case NO_KEYS:
        return 0;
      case CACHEABLE_READ:
        return 1;
      case READ:
        return 2;
      case WRITE:
        return 3;
      default:
        return 4;
    }
  }

  private static B[] noKeySubs(String... names) {
    B[] bs = new B[names.length];
    for (int i = 0; i < names.length; i++) {
      bs[i] = c(names[i], NO_KEYS);
    }
    return bs;
  }

  static {
    List<CommandSpec> t = new ArrayList<>();

    // ---- strings -----------------------------------------------------------------------
    add(
        t,
        k1("GET", CACHEABLE_READ),
        c("MGET", CACHEABLE_READ).range(1, -1, 1),
        k1("STRLEN", CACHEABLE_READ),
        k1("GETRANGE", CACHEABLE_READ),
        k1("SUBSTR", CACHEABLE_READ),
        c("LCS", CACHEABLE_READ).range(1, 2, 1),
        k1("APPEND", WRITE),
        k1("DECR", WRITE),
        k1("DECRBY", WRITE),
        k1("INCR", WRITE),
        k1("INCRBY", WRITE),
        k1("INCRBYFLOAT", WRITE),
        k1("GETDEL", WRITE),
        k1("GETEX", WRITE),
        k1("GETSET", WRITE),
        c("MSET", WRITE).range(1, -1, 2),
        c("MSETNX", WRITE).range(1, -1, 2),
        k1("SET", WRITE),
        k1("SETEX", WRITE),
        k1("PSETEX", WRITE),
        k1("SETNX", WRITE),
        k1("SETRANGE", WRITE));

    // ---- bitmaps -----------------------------------------------------------------------
    add(
        t,
        k1("GETBIT", CACHEABLE_READ),
        k1("BITCOUNT", CACHEABLE_READ),
        k1("BITPOS", CACHEABLE_READ),
        k1("BITFIELD_RO", CACHEABLE_READ),
        k1("BITFIELD", WRITE),
        k1("SETBIT", WRITE),
        c("BITOP", WRITE).range(2, -1, 1));

    // ---- hashes ------------------------------------------------------------------------
    add(
        t,
        k1("HGET", CACHEABLE_READ),
        k1("HMGET", CACHEABLE_READ),
        k1("HGETALL", CACHEABLE_READ),
        k1("HEXISTS", CACHEABLE_READ),
        k1("HKEYS", CACHEABLE_READ),
        k1("HVALS", CACHEABLE_READ),
        k1("HLEN", CACHEABLE_READ),
        k1("HSTRLEN", CACHEABLE_READ),
        k1("HRANDFIELD", READ),
        k1("HSCAN", READ),
        k1("HTTL", READ),
        k1("HPTTL", READ),
        k1("HEXPIRETIME", READ),
        k1("HPEXPIRETIME", READ),
        k1("HDEL", WRITE),
        k1("HINCRBY", WRITE),
        k1("HINCRBYFLOAT", WRITE),
        k1("HMSET", WRITE),
        k1("HSET", WRITE),
        k1("HSETNX", WRITE),
        k1("HEXPIRE", WRITE),
        k1("HEXPIREAT", WRITE),
        k1("HPEXPIRE", WRITE),
        k1("HPEXPIREAT", WRITE),
        k1("HPERSIST", WRITE),
        k1("HGETDEL", WRITE), // Redis 8.0
        k1("HGETEX", WRITE), // Redis 8.0
        k1("HSETEX", WRITE)); // Redis 8.0

    // ---- lists -------------------------------------------------------------------------
    add(
        t,
        k1("LRANGE", CACHEABLE_READ),
        k1("LLEN", CACHEABLE_READ),
        k1("LINDEX", CACHEABLE_READ),
        k1("LPOS", CACHEABLE_READ),
        k1("LINSERT", WRITE),
        k1("LPOP", WRITE),
        k1("LPUSH", WRITE),
        k1("LPUSHX", WRITE),
        k1("LREM", WRITE),
        k1("LSET", WRITE),
        k1("LTRIM", WRITE),
        k1("RPOP", WRITE),
        k1("RPUSH", WRITE),
        k1("RPUSHX", WRITE),
        c("LMOVE", WRITE).range(1, 2, 1),
        c("RPOPLPUSH", WRITE).range(1, 2, 1),
        c("LMPOP", WRITE).numKeys(1),
        c("BLPOP", WRITE).range(1, -2, 1).blocking(),
        c("BRPOP", WRITE).range(1, -2, 1).blocking(),
        c("BLMOVE", WRITE).range(1, 2, 1).blocking(),
        c("BRPOPLPUSH", WRITE).range(1, 2, 1).blocking(),
        c("BLMPOP", WRITE).numKeys(2).blocking());

    // ---- sets --------------------------------------------------------------------------
    add(
        t,
        k1("SMEMBERS", CACHEABLE_READ),
        k1("SISMEMBER", CACHEABLE_READ),
        k1("SMISMEMBER", CACHEABLE_READ),
        k1("SCARD", CACHEABLE_READ),
        c("SINTER", CACHEABLE_READ).range(1, -1, 1),
        c("SUNION", CACHEABLE_READ).range(1, -1, 1),
        c("SDIFF", CACHEABLE_READ).range(1, -1, 1),
        c("SINTERCARD", CACHEABLE_READ).numKeys(1),
        k1("SRANDMEMBER", READ),
        k1("SSCAN", READ),
        k1("SADD", WRITE),
        k1("SREM", WRITE),
        k1("SPOP", WRITE),
        c("SMOVE", WRITE).range(1, 2, 1),
        c("SINTERSTORE", WRITE).range(1, -1, 1),
        c("SUNIONSTORE", WRITE).range(1, -1, 1),
        c("SDIFFSTORE", WRITE).range(1, -1, 1));

    // ---- sorted sets -------------------------------------------------------------------
    add(
        t,
        k1("ZRANGE", CACHEABLE_READ),
        k1("ZRANGEBYSCORE", CACHEABLE_READ),
        k1("ZREVRANGE", CACHEABLE_READ),
        k1("ZREVRANGEBYSCORE", CACHEABLE_READ),
        k1("ZRANGEBYLEX", CACHEABLE_READ),
        k1("ZREVRANGEBYLEX", CACHEABLE_READ),
        k1("ZSCORE", CACHEABLE_READ),
        k1("ZMSCORE", CACHEABLE_READ),
        k1("ZCARD", CACHEABLE_READ),
        k1("ZCOUNT", CACHEABLE_READ),
        k1("ZLEXCOUNT", CACHEABLE_READ),
        k1("ZRANK", CACHEABLE_READ),
        k1("ZREVRANK", CACHEABLE_READ),
        c("ZUNION", CACHEABLE_READ).numKeys(1),
        c("ZINTER", CACHEABLE_READ).numKeys(1),
        c("ZDIFF", CACHEABLE_READ).numKeys(1),
        c("ZINTERCARD", CACHEABLE_READ).numKeys(1),
        k1("ZRANDMEMBER", READ),
        k1("ZSCAN", READ),
        k1("ZADD", WRITE),
        k1("ZINCRBY", WRITE),
        k1("ZREM", WRITE),
        k1("ZREMRANGEBYLEX", WRITE),
        k1("ZREMRANGEBYRANK", WRITE),
        k1("ZREMRANGEBYSCORE", WRITE),
        k1("ZPOPMIN", WRITE),
        k1("ZPOPMAX", WRITE),
        c("ZRANGESTORE", WRITE).range(1, 2, 1),
        c("ZUNIONSTORE", WRITE).destinationAndNumKeys(2),
        c("ZINTERSTORE", WRITE).destinationAndNumKeys(2),
        c("ZDIFFSTORE", WRITE).destinationAndNumKeys(2),
        c("ZMPOP", WRITE).numKeys(1),
        c("BZPOPMIN", WRITE).range(1, -2, 1).blocking(),
        c("BZPOPMAX", WRITE).range(1, -2, 1).blocking(),
        c("BZMPOP", WRITE).numKeys(2).blocking());

    // ---- streams -----------------------------------------------------------------------
    add(
        t,
        k1("XLEN", READ),
        k1("XRANGE", READ),
        k1("XREVRANGE", READ),
        k1("XPENDING", READ),
        c("XREAD", READ).keys(KeySpec.XREAD).blocking(Blocking.WITH_BLOCK_OPTION),
        c("XREADGROUP", WRITE).keys(KeySpec.XREAD).blocking(Blocking.WITH_BLOCK_OPTION),
        k1("XACK", WRITE),
        k1("XADD", WRITE),
        k1("XAUTOCLAIM", WRITE),
        k1("XCLAIM", WRITE),
        k1("XDEL", WRITE),
        k1("XSETID", WRITE),
        k1("XTRIM", WRITE),
        k1("XACKDEL", WRITE), // Redis 8.2
        k1("XDELEX", WRITE)); // Redis 8.2
    container(
        t,
        "XGROUP",
        c("CREATE", WRITE).key(2),
        c("CREATECONSUMER", WRITE).key(2),
        c("DELCONSUMER", WRITE).key(2),
        c("DESTROY", WRITE).key(2),
        c("SETID", WRITE).key(2),
        c("HELP", NO_KEYS));
    container(
        t,
        "XINFO",
        c("CONSUMERS", READ).key(2),
        c("GROUPS", READ).key(2),
        c("STREAM", READ).key(2),
        c("HELP", NO_KEYS));

    // ---- HyperLogLog -------------------------------------------------------------------
    add(
        t,
        k1("PFADD", WRITE),
        // PFCOUNT stores the computed cardinality in the HLL header (the value GET returns)
        c("PFCOUNT", WRITE).range(1, -1, 1),
        c("PFMERGE", WRITE).range(1, -1, 1),
        c("PFDEBUG", WRITE).key(2),
        c("PFSELFTEST", NO_KEYS));

    // ---- geo ---------------------------------------------------------------------------
    add(
        t,
        k1("GEODIST", READ),
        k1("GEOHASH", READ),
        k1("GEOPOS", READ),
        k1("GEOSEARCH", READ),
        k1("GEORADIUS_RO", READ),
        k1("GEORADIUSBYMEMBER_RO", READ),
        k1("GEOADD", WRITE),
        c("GEORADIUS", WRITE).keys(KeySpec.GEORADIUS),
        c("GEORADIUSBYMEMBER", WRITE).keys(KeySpec.GEORADIUS),
        c("GEOSEARCHSTORE", WRITE).range(1, 2, 1));

    // ---- generic keyspace --------------------------------------------------------------
    add(
        t,
        c("EXISTS", CACHEABLE_READ).range(1, -1, 1),
        k1("TYPE", CACHEABLE_READ),
        k1("TTL", READ),
        k1("PTTL", READ),
        k1("EXPIRETIME", READ),
        k1("PEXPIRETIME", READ),
        k1("DUMP", READ),
        c("TOUCH", READ).range(1, -1, 1),
        c("KEYS", READ),
        c("SCAN", READ),
        c("RANDOMKEY", READ),
        c("SORT_RO", READ).key(1),
        c("DEL", WRITE).range(1, -1, 1),
        c("UNLINK", WRITE).range(1, -1, 1),
        k1("EXPIRE", WRITE),
        k1("EXPIREAT", WRITE),
        k1("PEXPIRE", WRITE),
        k1("PEXPIREAT", WRITE),
        k1("PERSIST", WRITE),
        c("COPY", WRITE).range(1, 2, 1).refine(KindRefinement.COPY),
        c("RENAME", WRITE).range(1, 2, 1),
        c("RENAMENX", WRITE).range(1, 2, 1),
        k1("RESTORE", WRITE),
        k1("RESTORE-ASKING", WRITE),
        c("SORT", WRITE).keys(KeySpec.SORT),
        // MOVE creates the key in another database: that database's entries are not nameable
        k1("MOVE", WRITE_ALL),
        // MIGRATE writes (and usually deletes) keys on another server, possibly this one
        c("MIGRATE", WRITE_ALL).keys(KeySpec.MIGRATE),
        c("WAIT", NO_KEYS).blocking(),
        c("WAITAOF", NO_KEYS).blocking());
    container(
        t,
        "OBJECT",
        c("ENCODING", READ).key(2),
        c("FREQ", READ).key(2),
        c("IDLETIME", READ).key(2),
        c("REFCOUNT", READ).key(2),
        c("HELP", NO_KEYS));

    // ---- scripting and functions -------------------------------------------------------
    add(
        t,
        c("EVAL", WRITE).numKeys(2).refine(KindRefinement.SCRIPT),
        c("EVALSHA", WRITE).numKeys(2).refine(KindRefinement.SCRIPT),
        c("FCALL", WRITE).numKeys(2).refine(KindRefinement.SCRIPT),
        c("EVAL_RO", READ).numKeys(2),
        c("EVALSHA_RO", READ).numKeys(2),
        c("FCALL_RO", READ).numKeys(2));
    container(t, "SCRIPT", noKeySubs("DEBUG", "EXISTS", "FLUSH", "HELP", "KILL", "LOAD"));
    container(
        t,
        "FUNCTION",
        noKeySubs("DELETE", "DUMP", "FLUSH", "HELP", "KILL", "LIST", "LOAD", "RESTORE", "STATS"));

    // ---- transactions ------------------------------------------------------------------
    add(
        t,
        c("MULTI", NO_KEYS).session(Session.MULTI),
        c("EXEC", NO_KEYS).session(Session.EXEC),
        c("DISCARD", NO_KEYS).session(Session.DISCARD),
        c("WATCH", READ).range(1, -1, 1).session(Session.WATCH),
        c("UNWATCH", NO_KEYS).session(Session.UNWATCH));

    // ---- pub/sub (channels are not keys) -----------------------------------------------
    add(
        t,
        c("PUBLISH", NO_KEYS),
        c("SPUBLISH", NO_KEYS),
        c("SUBSCRIBE", NO_KEYS).session(Session.SUBSCRIBE),
        c("PSUBSCRIBE", NO_KEYS).session(Session.SUBSCRIBE),
        c("SSUBSCRIBE", NO_KEYS).session(Session.SUBSCRIBE),
        c("UNSUBSCRIBE", NO_KEYS).session(Session.SUBSCRIBE),
        c("PUNSUBSCRIBE", NO_KEYS).session(Session.SUBSCRIBE),
        c("SUNSUBSCRIBE", NO_KEYS).session(Session.SUBSCRIBE));
    container(
        t,
        "PUBSUB",
        noKeySubs("CHANNELS", "HELP", "NUMPAT", "NUMSUB", "SHARDCHANNELS", "SHARDNUMSUB"));

    // ---- connection --------------------------------------------------------------------
    add(
        t,
        c("AUTH", NO_KEYS).session(Session.AUTH),
        c("ECHO", NO_KEYS),
        c("PING", NO_KEYS),
        c("QUIT", NO_KEYS),
        c("HELLO", NO_KEYS).session(Session.HELLO),
        c("RESET", NO_KEYS).session(Session.RESET),
        c("SELECT", NO_KEYS).session(Session.SELECT));
    B[] client =
        noKeySubs(
            "CACHING",
            "GETNAME",
            "GETREDIR",
            "HELP",
            "ID",
            "INFO",
            "KILL",
            "LIST",
            "NO-EVICT",
            "NO-TOUCH",
            "PAUSE",
            "REPLY",
            "SETINFO",
            "SETNAME",
            "TRACKING",
            "TRACKINGINFO",
            "UNBLOCK",
            "UNPAUSE");
    client[14].session(Session.CLIENT_TRACKING);
    container(t, "CLIENT", client);

    // ---- cluster -----------------------------------------------------------------------
    add(
        t,
        c("ASKING", NO_KEYS),
        c("READONLY", NO_KEYS).session(Session.READONLY),
        c("READWRITE", NO_KEYS).session(Session.READWRITE));
    container(
        t,
        "CLUSTER",
        noKeySubs(
            "ADDSLOTS",
            "ADDSLOTSRANGE",
            "BUMPEPOCH",
            "COUNT-FAILURE-REPORTS",
            "COUNTKEYSINSLOT",
            "DELSLOTS",
            "DELSLOTSRANGE",
            "FAILOVER",
            "FLUSHSLOTS",
            "FORGET",
            "GETKEYSINSLOT",
            "HELP",
            "INFO",
            "KEYSLOT",
            "LINKS",
            "MEET",
            "MYID",
            "MYSHARDID",
            "NODES",
            "REPLICAS",
            "REPLICATE",
            "RESET",
            "SAVECONFIG",
            "SET-CONFIG-EPOCH",
            "SETSLOT",
            "SHARDS",
            "SLAVES",
            "SLOTS"));

    // ---- server ------------------------------------------------------------------------
    add(
        t,
        c("FLUSHALL", WRITE_ALL),
        c("FLUSHDB", WRITE_ALL),
        c("SWAPDB", WRITE_ALL),
        c("SFLUSH", WRITE_ALL), // flushes whole slots
        c("DEBUG", WRITE_ALL), // DEBUG RELOAD / LOADAOF / SET-ACTIVE-EXPIRE ... replace data
        c("REPLICAOF", WRITE_ALL), // a new replica drops its data and loads its primary's
        c("SLAVEOF", WRITE_ALL),
        c("FAILOVER", WRITE_ALL),
        c("SHUTDOWN", WRITE_ALL),
        c("BGREWRITEAOF", NO_KEYS),
        c("BGSAVE", NO_KEYS),
        c("SAVE", NO_KEYS),
        c("LASTSAVE", NO_KEYS),
        c("DBSIZE", NO_KEYS),
        c("INFO", NO_KEYS),
        c("LOLWUT", NO_KEYS),
        c("TIME", NO_KEYS),
        c("ROLE", NO_KEYS),
        c("SYNC", NO_KEYS),
        c("PSYNC", NO_KEYS),
        c("REPLCONF", NO_KEYS),
        c("SENTINEL", NO_KEYS),
        c("MONITOR", NO_KEYS).session(Session.MONITOR));
    container(
        t,
        "ACL",
        noKeySubs(
            "CAT", "DELUSER", "DRYRUN", "GENPASS", "GETUSER", "HELP", "LIST", "LOAD", "LOG", "SAVE",
            "SETUSER", "USERS", "WHOAMI"));
    container(
        t,
        "COMMAND",
        noKeySubs("COUNT", "DOCS", "GETKEYS", "GETKEYSANDFLAGS", "HELP", "INFO", "LIST"));
    container(t, "CONFIG", noKeySubs("GET", "HELP", "RESETSTAT", "REWRITE", "SET"));
    container(
        t,
        "LATENCY",
        noKeySubs("DOCTOR", "GRAPH", "HELP", "HISTOGRAM", "HISTORY", "LATEST", "RESET"));
    container(t, "MODULE", noKeySubs("HELP", "LIST", "LOAD", "LOADEX", "UNLOAD"));
    container(t, "SLOWLOG", noKeySubs("GET", "HELP", "LEN", "RESET"));
    container(
        t,
        "MEMORY",
        c("USAGE", READ).key(2),
        c("DOCTOR", NO_KEYS),
        c("HELP", NO_KEYS),
        c("MALLOC-STATS", NO_KEYS),
        c("PURGE", NO_KEYS),
        c("STATS", NO_KEYS));

    for (CommandSpec spec : t) {
      put(spec);
    }
    ALL = Collections.unmodifiableList(t);
  }
}
