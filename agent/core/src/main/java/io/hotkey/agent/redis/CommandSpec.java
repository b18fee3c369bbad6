package io.hotkey.agent.redis;

import java.util.List;

/**
 * What the agent knows about one Redis command: how it uses the keys it names, where those keys sit
 * in its argv, and whether it changes connection state the agent has to follow.
 *
 * <p>{@code argv} is always the command as sent, like Redis' own argv: {@code argv[0]} is the
 * command name (any case), {@code argv[1..]} the arguments. Every method here is total: a null,
 * short or otherwise malformed argv never throws, it yields the keys that are safely present. None
 * of the methods taking an argv allocate.
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

  /** How the arguments of one invocation can make it need more care than the command's kind. */
  enum KindRefinement {
    /** The command's kind, whatever the arguments. */
    NONE,
    /**
     * EVAL / EVALSHA / FCALL: a script that declares no key (numkeys 0 or invalid) may write keys
     * it does not name, so it is WRITE_ALL.
     */
    SCRIPT,
    /** COPY ... DB n writes a key of another database, so it is WRITE_ALL. */
    COPY,
    /** A container: the kind of the subcommand argv[1] names, WRITE for an unknown one. */
    SUBCOMMAND
  }

  /** Whether the command may block its connection. */
  enum Blocking {
    NEVER,
    ALWAYS,
    /** XREAD / XREADGROUP: only with the BLOCK option. */
    WITH_BLOCK_OPTION
  }

  private final String name;
  final byte[] upperName;
  private final Kind kind;
  private final KindRefinement refinement;
  private final Session session;
  private final Blocking blocking;
  private final KeySpec keys;

  CommandSpec(
      String name,
      Kind kind,
      KindRefinement refinement,
      Session session,
      Blocking blocking,
      KeySpec keys) {
    this.name = name;
    this.upperName =
        Bytes.ascii(name.indexOf(' ') < 0 ? name : name.substring(name.indexOf(' ') + 1));
    this.kind = kind;
    this.refinement = refinement;
    this.session = session;
    this.blocking = blocking;
    this.keys = keys;
  }

  /**
   * Canonical upper-case name; subcommands are "CONTAINER SUB" (e.g. "OBJECT ENCODING"); unknown
   * commands are "UNKNOWN".
   */
  public String name() {
    return name;
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
    switch (refinement) {
      case SCRIPT:
        return keyCount(argv) == 0 ? Kind.WRITE_ALL : kind;
      case COPY:
        return hasDbOption(argv) ? Kind.WRITE_ALL : kind;
      case SUBCOMMAND:
        {
          CommandSpec sub = subcommand(argv);
          if (sub != null) {
            return sub.kind(argv);
          }
          return argv == null || argv.length < 2 ? kind : Kind.WRITE;
        }
      default:
        return kind;
    }
  }

  private static boolean hasDbOption(byte[][] argv) {
    if (argv != null) {
      for (int i = 3; i < argv.length; i++) {
        if (Bytes.eqIgnoreCase(argv[i], Bytes.DB)) {
          return true;
        }
      }
    }
    return false;
  }

  /** The connection state this invocation changes, {@link Session#NONE} for most commands. */
  public Session session(byte[][] argv) {
    if (refinement == KindRefinement.SUBCOMMAND) {
      CommandSpec sub = subcommand(argv);
      return sub == null ? Session.NONE : sub.session;
    }
    return session;
  }

  /** True for commands that may block the connection (BLPOP, BLMOVE, BZPOPMIN, XREAD, WAIT...). */
  public boolean blocking() {
    return blocking != Blocking.NEVER;
  }

  /** Like {@link #blocking()}, but XREAD / XREADGROUP only block with the BLOCK option. */
  public boolean blocking(byte[][] argv) {
    return blocking == Blocking.WITH_BLOCK_OPTION
        ? KeySpec.xreadBlocks(argv)
        : blocking == Blocking.ALWAYS;
  }

  /**
   * For a container, the spec of the subcommand named by argv[1] (case-insensitive); null when argv
   * names none of its known subcommands or this is not a container.
   */
  CommandSpec subcommand(byte[][] argv) {
    return keys instanceof KeySpec.SubcommandKeys
        ? ((KeySpec.SubcommandKeys) keys).find(argv)
        : null;
  }

  /** A container's known subcommands; empty for any other command. */
  List<CommandSpec> subcommands() {
    return keys instanceof KeySpec.SubcommandKeys
        ? ((KeySpec.SubcommandKeys) keys).all()
        : List.of();
  }

  /** Number of keys this argv names (0 when it is too malformed to name any). */
  public int keyCount(byte[][] argv) {
    if (argv == null) {
      return 0;
    }
    // Most commands' keys are a range: tested first, their call is inlined even where a service
    // sends commands of every shape and the call on KeySpec would be a megamorphic dispatch.
    KeySpec k = keys;
    return k instanceof KeySpec.KeyRange ? ((KeySpec.KeyRange) k).count(argv) : k.count(argv);
  }

  /**
   * Index into argv of the n-th key (ascending argv order), or -1 when n is not in [0,
   * keyCount(argv)).
   */
  public int keyIndex(byte[][] argv, int n) {
    if (n < 0 || n >= keyCount(argv)) {
      return -1;
    }
    KeySpec k = keys; // a range first, as in keyCount
    return k instanceof KeySpec.KeyRange ? ((KeySpec.KeyRange) k).index(argv, n) : k.index(argv, n);
  }

  @Override
  public String toString() {
    return name + "(" + kind + ")";
  }
}
