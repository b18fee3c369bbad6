package io.hotkey.agent.redis;

/**
 * What the agent knows about one Redis command: how it uses the keys it names, where those keys sit
 * in its argv, and whether it changes connection state the agent has to follow.
 *
 * <p>{@code argv} is always the command as sent, like Redis' own argv: {@code argv[0]} is the
 * command name (any case), {@code argv[1..]} the arguments. Every method here is total: a null,
 * short or otherwise malformed argv never throws, it yields the keys that are safely present. None
 * of the methods allocate.
 *
 * <p>Key positions follow Redis' own key specs and {@code getkeys} procedures (src/commands/*.json
 * and db.c), so keys are exactly what Redis itself (ACL, cluster routing, {@code COMMAND GETKEYS})
 * would report, always in ascending argv order. For writes this includes the keys that are only
 * read (e.g. the source of COPY or SINTERSTORE): invalidating them is harmless.
 *
 * <p>Instances are immutable and shared; obtain them from {@link RedisCommandTable}.
 */
public final class CommandSpec {

  /** How a command uses the values of the keys it names. */
  public enum Kind {
    /**
     * Deterministic read whose full reply depends only on the named keys' values (and argv): may be
     * served from a local cache.
     */
    CACHEABLE_READ,
    /**
     * Read that must always reach Redis: time-dependent, random, cursor-based, side effects on
     * access metadata, or not worth caching.
     */
    READ,
    /** May modify the keys it names (and only those). */
    WRITE,
    /**
     * May modify keys it cannot name (FLUSHALL, SWAPDB, keyless scripts, cross-DB moves...): drop
     * every local entry.
     */
    WRITE_ALL,
    /** Touches no key's value. */
    NO_KEYS
  }

  /**
   * Connection state the agent must follow. {@code SUBSCRIBE} is reported for every pub/sub
   * subscription change (SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE and their UNSUBSCRIBE forms); use {@link
   * #name()} to tell them apart.
   */
  public enum Session {
    NONE,
    MULTI,
    EXEC,
    DISCARD,
    WATCH,
    UNWATCH,
    SELECT,
    HELLO,
    RESET,
    CLIENT_TRACKING,
    SUBSCRIBE,
    MONITOR,
    /** Changes who the connection is, and so what it may read. */
    AUTH,
    /**
     * A Cluster replica connection starts (READONLY) or stops (READWRITE) answering reads itself.
     */
    READONLY,
    READWRITE
  }

  // ---- key modes -------------------------------------------------------------------------
  static final int K_NONE = 0;

  /** (first, last, step) like Redis' legacy range spec; last < 0 counts from the end. */
  static final int K_RANGE = 1;

  /**
   * numkeys at {@code a}, keys right after it; {@code b == 1}: argv[1] is a destination key too.
   */
  static final int K_KEYNUM = 2;

  /** SORT: key at 1, plus the (last) STORE destination. */
  static final int K_SORT = 3;

  /** MIGRATE: key at 3, or the keys after KEYS when argv[3] is empty. */
  static final int K_MIGRATE = 4;

  /** GEORADIUS / GEORADIUSBYMEMBER: key at 1, plus the (last) STORE / STOREDIST destination. */
  static final int K_GEORADIUS = 5;

  /** XREAD / XREADGROUP: first half of the arguments after STREAMS. */
  static final int K_XREAD = 6;

  /** Container (OBJECT, XINFO, CLIENT...): delegates to the subcommand named by argv[1]. */
  static final int K_CONTAINER = 7;

  /**
   * Every argument from index {@code a} on (unknown commands: a = 1; unknown subcommands: a = 2).
   */
  static final int K_ALL_FROM = 8;

  // ---- argv-dependent kind refinements ---------------------------------------------------
  static final int R_NONE = 0;

  /**
   * EVAL / EVALSHA / FCALL: zero (or invalid) numkeys means the script may write keys it does not
   * declare.
   */
  static final int R_SCRIPT = 1;

  /** COPY ... DB n writes a key of another database. */
  static final int R_COPY = 2;

  private final String name;
  final byte[] upperName;
  private final Kind kind;
  private final Session session;
  private final boolean blocking;
  private final boolean known;
  private final int keyMode;
  private final int a;
  private final int b;
  private final int c;
  private final int refine;
  private final CommandSpec[] subcommands;

  CommandSpec(
      String name,
      Kind kind,
      Session session,
      boolean blocking,
      boolean known,
      int keyMode,
      int a,
      int b,
      int c,
      int refine,
      CommandSpec[] subcommands) {
    this.name = name;
    this.upperName =
        Bytes.ascii(name.indexOf(' ') < 0 ? name : name.substring(name.indexOf(' ') + 1));
    this.kind = kind;
    this.session = session;
    this.blocking = blocking;
    this.known = known;
    this.keyMode = keyMode;
    this.a = a;
    this.b = b;
    this.c = c;
    this.refine = refine;
    this.subcommands = subcommands;
  }

  /**
   * Canonical upper-case name; subcommands are "CONTAINER SUB" (e.g. "OBJECT ENCODING"); unknown
   * commands are "UNKNOWN".
   */
  public String name() {
    return name;
  }

  /** False for the shared spec returned for unknown commands. */
  public boolean isKnown() {
    return known;
  }

  /** True for container commands (OBJECT, CLIENT, XGROUP...) whose behaviour depends on argv[1]. */
  public boolean isContainer() {
    return keyMode == K_CONTAINER;
  }

  /**
   * The kind of this command whatever its arguments. For a container it is the most conservative
   * kind among its known subcommands. The agent must decide with {@link #kind(byte[][])}, which is
   * exact for the given argv: EVAL/EVALSHA/FCALL are WRITE here but WRITE_ALL with numkeys 0, and
   * COPY is WRITE here but WRITE_ALL with the DB option.
   */
  public Kind kind() {
    return kind;
  }

  /**
   * The kind of this exact invocation. Differs from {@link #kind()} only where it must be more
   * careful: EVAL/EVALSHA/FCALL with numkeys 0 (or unparsable) → WRITE_ALL; COPY with DB →
   * WRITE_ALL; containers → the subcommand's kind, WRITE for an unknown subcommand.
   */
  public Kind kind(byte[][] argv) {
    switch (refine) {
      case R_SCRIPT:
        return keyCount(argv) == 0 ? Kind.WRITE_ALL : kind;
      case R_COPY:
        if (argv != null) {
          for (int i = 3; i < argv.length; i++) {
            if (Bytes.eqIgnoreCase(argv[i], Bytes.DB)) {
              return Kind.WRITE_ALL;
            }
          }
        }
        return kind;
      default:
        break;
    }
    if (keyMode == K_CONTAINER) {
      CommandSpec sub = subcommand(argv);
      if (sub != null) {
        return sub.kind(argv);
      }
      return argv == null || argv.length < 2 ? kind : Kind.WRITE;
    }
    return kind;
  }

  /** The connection state this invocation changes, {@link Session#NONE} for most commands. */
  public Session session(byte[][] argv) {
    if (keyMode == K_CONTAINER) {
      CommandSpec sub = subcommand(argv);
      return sub == null ? Session.NONE : sub.session;
    }
    return session;
  }

  /** True for commands that may block the connection (BLPOP, BLMOVE, BZPOPMIN, XREAD, WAIT...). */
  public boolean blocking() {
    return blocking;
  }

  /** Like {@link #blocking()}, but XREAD / XREADGROUP only block with the BLOCK option. */
  public boolean blocking(byte[][] argv) {
    if (keyMode == K_XREAD && blocking) {
      return xreadStreamsPos(argv, true) == -2;
    }
    return blocking;
  }

  /**
   * For a container, the spec of the subcommand named by argv[1] (case-insensitive); null when argv
   * names none of its known subcommands or this is not a container.
   */
  public CommandSpec subcommand(byte[][] argv) {
    if (subcommands == null || argv == null || argv.length < 2 || argv[1] == null) {
      return null;
    }
    byte[] s = argv[1];
    for (CommandSpec sub : subcommands) {
      if (Bytes.eqIgnoreCase(s, sub.upperName)) {
        return sub;
      }
    }
    return null;
  }

  /** Number of keys this argv names (0 when it is too malformed to name any). */
  public int keyCount(byte[][] argv) {
    if (argv == null) {
      return 0;
    }
    int argc = argv.length;
    switch (keyMode) {
      case K_NONE:
        return 0;
      case K_RANGE:
        {
          if (argc <= a) {
            return 0;
          }
          int last = b >= 0 ? b : argc + b;
          if (last >= argc) {
            last = argc - 1;
          }
          return last < a ? 0 : (last - a) / c + 1;
        }
      case K_KEYNUM:
        {
          int num = numKeys(argv);
          return num <= 0 ? 0 : num + b;
        }
      case K_SORT:
        return argc < 2 ? 0 : (sortStorePos(argv) > 0 ? 2 : 1);
      case K_MIGRATE:
        return migrateCount(argv);
      case K_GEORADIUS:
        return argc < 2 ? 0 : (geoStorePos(argv) > 0 ? 2 : 1);
      case K_XREAD:
        {
          int pos = xreadStreamsPos(argv, false);
          if (pos < 0) {
            return 0;
          }
          int rest = argc - pos - 1;
          return rest == 0 || (rest & 1) != 0 ? 0 : rest / 2;
        }
      case K_CONTAINER:
        {
          if (argc < 2) {
            return 0;
          }
          CommandSpec sub = subcommand(argv);
          return sub != null ? sub.keyCount(argv) : argc > 2 ? argc - 2 : 0;
        }
      case K_ALL_FROM:
        return argc > a ? argc - a : 0;
      default:
        return 0;
    }
  }

  /**
   * Index into argv of the n-th key (ascending argv order), or -1 when n is not in [0,
   * keyCount(argv)).
   */
  public int keyIndex(byte[][] argv, int n) {
    if (n < 0 || n >= keyCount(argv)) {
      return -1;
    }
    switch (keyMode) {
      case K_RANGE:
        return a + n * c;
      case K_KEYNUM:
        if (b == 1) {
          return n == 0 ? 1 : a + n;
        }
        return a + 1 + n;
      case K_SORT:
        return n == 0 ? 1 : sortStorePos(argv);
      case K_MIGRATE:
        return migrateFirst(argv) + n;
      case K_GEORADIUS:
        return n == 0 ? 1 : geoStorePos(argv);
      case K_XREAD:
        return xreadStreamsPos(argv, false) + 1 + n;
      case K_CONTAINER:
        {
          CommandSpec sub = subcommand(argv);
          return sub != null ? sub.keyIndex(argv, n) : 2 + n;
        }
      case K_ALL_FROM:
        return a + n;
      default:
        return -1;
    }
  }

  // ---- movable-key helpers (mirror Redis' db.c getkeys procedures) ------------------------

  /**
   * numkeys for K_KEYNUM: Redis rejects (and runs nothing) when it is not an integer in [1, args
   * left].
   */
  private int numKeys(byte[][] argv) {
    int argc = argv.length;
    if (argc <= a) {
      return 0;
    }
    long num = Bytes.parseLong(argv[a]);
    if (num < 1 || num > argc - (a + 1)) {
      return 0;
    }
    return (int) num;
  }

  /** SORT: position of the last STORE destination, 0 if none (same scan as sortGetKeys). */
  private static int sortStorePos(byte[][] argv) {
    int argc = argv.length;
    int store = 0;
    for (int i = 2; i < argc; i++) {
      byte[] arg = argv[i];
      if (Bytes.eqIgnoreCase(arg, Bytes.LIMIT)) {
        i += 2;
      } else if (Bytes.eqIgnoreCase(arg, Bytes.GET) || Bytes.eqIgnoreCase(arg, Bytes.BY)) {
        i += 1;
      } else if (Bytes.eqIgnoreCase(arg, Bytes.STORE) && i + 1 < argc) {
        store = i + 1; // not skipped, like Redis; the last STORE wins
      }
    }
    return store;
  }

  /** GEORADIUS*: position of the last STORE/STOREDIST destination, 0 if none (georadiusGetKeys). */
  private static int geoStorePos(byte[][] argv) {
    int argc = argv.length;
    int store = 0;
    for (int i = 5; i < argc; i++) {
      byte[] arg = argv[i];
      if ((Bytes.eqIgnoreCase(arg, Bytes.STORE) || Bytes.eqIgnoreCase(arg, Bytes.STOREDIST))
          && i + 1 < argc) {
        store = i + 1;
        i++;
      }
    }
    return store;
  }

  /**
   * MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw | AUTH2 user pw] [KEYS key...]
   * (migrateGetKeys).
   */
  private static int migrateKeysPos(byte[][] argv) {
    int argc = argv.length;
    if (argc > 6) {
      for (int i = 6; i < argc; i++) {
        byte[] arg = argv[i];
        if (Bytes.eqIgnoreCase(arg, Bytes.KEYS)) {
          return i;
        }
        if (Bytes.eqIgnoreCase(arg, Bytes.AUTH)) {
          i += 1;
        } else if (Bytes.eqIgnoreCase(arg, Bytes.AUTH2)) {
          i += 2;
        }
      }
    }
    return -1;
  }

  private static int migrateCount(byte[][] argv) {
    int argc = argv.length;
    if (argc < 4) {
      return 0;
    }
    int keys = migrateKeysPos(argv);
    if (keys < 0) {
      return 1;
    }
    if (argv[3] == null || argv[3].length > 0) {
      return 0; // syntax error in Redis: key and KEYS together
    }
    return argc - keys - 1;
  }

  private static int migrateFirst(byte[][] argv) {
    int keys = migrateKeysPos(argv);
    return keys < 0 ? 3 : keys + 1;
  }

  /**
   * XREAD/XREADGROUP option scan (xreadGetKeys): index of STREAMS, -1 on a syntax error. With
   * {@code reportBlock}, returns -2 as soon as a BLOCK option is seen.
   */
  private static int xreadStreamsPos(byte[][] argv, boolean reportBlock) {
    if (argv == null) {
      return -1;
    }
    int argc = argv.length;
    for (int i = 1; i < argc; i++) {
      byte[] arg = argv[i];
      if (Bytes.eqIgnoreCase(arg, Bytes.BLOCK)) {
        if (reportBlock) {
          return -2;
        }
        i++;
      } else if (Bytes.eqIgnoreCase(arg, Bytes.COUNT)) {
        i++;
      } else if (Bytes.eqIgnoreCase(arg, Bytes.GROUP)) {
        i += 2;
      } else if (Bytes.eqIgnoreCase(arg, Bytes.NOACK)) {
        // no argument
      } else if (Bytes.eqIgnoreCase(arg, Bytes.STREAMS)) {
        return i;
      } else {
        return -1;
      }
    }
    return -1;
  }

  // ---- for the table and tests ------------------------------------------------------------

  int keyMode() {
    return keyMode;
  }

  CommandSpec[] subcommands() {
    return subcommands;
  }

  @Override
  public String toString() {
    return name + "(" + kind + ")";
  }
}
