package io.hotkey.agent.redis;

import java.util.List;

/**
 * Where a command's keys sit in its argv, following Redis' own key specs (src/commands/*.json) and
 * getkeys procedures (db.c): keys in ascending argv order, and none when the argv is too malformed
 * for Redis to run it.
 *
 * <p>A closed family: the constructor is private, so every key specification is one of the nested
 * final classes below, each immutable and shared. Both methods are total for a non-null argv and
 * never allocate.
 */
abstract class KeySpec {

  /** A command that names no key. */
  static final KeySpec NONE = new NoKeys();

  /** SORT: the key at 1, plus the last STORE destination. */
  static final KeySpec SORT = new SortKeys();

  /** MIGRATE: the key at 3, or the keys after KEYS when argv[3] is empty. */
  static final KeySpec MIGRATE = new MigrateKeys();

  /** GEORADIUS, GEORADIUSBYMEMBER: the key at 1, plus the last STORE / STOREDIST destination. */
  static final KeySpec GEORADIUS = new GeoradiusKeys();

  /** XREAD, XREADGROUP: the first half of the arguments after STREAMS. */
  static final KeySpec XREAD = new XreadKeys();

  private KeySpec() {}

  /** Whether the BLOCK option comes before STREAMS; false for a null argv. */
  static boolean xreadBlocks(byte[][] argv) {
    return argv != null && streamsPos(argv, true) == -2;
  }

  /**
   * The option scan of xreadGetKeys: index of STREAMS, -1 on a syntax error; with {@code
   * reportBlock}, -2 as soon as a BLOCK option is seen.
   */
  private static int streamsPos(byte[][] argv, boolean reportBlock) {
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

  /** Number of keys {@code argv} names; 0 when it is too malformed to name any. */
  abstract int count(byte[][] argv);

  /** Index into {@code argv} of the n-th key, for {@code n} in {@code [0, count(argv))}. */
  abstract int index(byte[][] argv, int n);

  /**
   * The keys from {@code first} to {@code last} every {@code step}; a negative last counts back.
   */
  static KeySpec range(int first, int last, int step) {
    return new KeyRange(first, last, step);
  }

  /**
   * The {@code numkeys} keys right after the count at {@code numkeysIndex}, and argv[1] before them
   * when {@code destinationFirst} (ZUNIONSTORE and the like).
   */
  static KeySpec numKeys(int numkeysIndex, boolean destinationFirst) {
    return new KeyNum(numkeysIndex, destinationFirst);
  }

  /** Every argument from {@code first} on (an unknown command or subcommand). */
  static KeySpec allFrom(int first) {
    return new AllFrom(first);
  }

  /** The keys of the subcommand named by argv[1], or every argument after it when unknown. */
  static SubcommandKeys subcommands(CommandSpec[] subcommands) {
    return new SubcommandKeys(subcommands);
  }

  private static final class NoKeys extends KeySpec {
    @Override
    int count(byte[][] argv) {
      return 0;
    }

    @Override
    int index(byte[][] argv, int n) {
      return -1;
    }
  }

  /** Redis' legacy (first, last, step) range. */
  static final class KeyRange extends KeySpec {
    private final int first;

    /** Inclusive; a negative value counts from the end (-1 is the last argument). */
    private final int last;

    private final int step;

    private KeyRange(int first, int last, int step) {
      this.first = first;
      this.last = last;
      this.step = step;
    }

    @Override
    int count(byte[][] argv) {
      int argc = argv.length;
      if (argc <= first) {
        return 0;
      }
      int end = Math.min(last >= 0 ? last : argc + last, argc - 1);
      if (end < first) {
        return 0;
      }
      return step == 1 ? end - first + 1 : (end - first) / step + 1; // most ranges: no division
    }

    @Override
    int index(byte[][] argv, int n) {
      return first + n * step;
    }
  }

  /** A {@code numkeys} argument followed by that many keys (EVAL, ZUNION, LMPOP...). */
  static final class KeyNum extends KeySpec {
    private final int numkeysIndex;
    private final boolean destinationFirst;

    private KeyNum(int numkeysIndex, boolean destinationFirst) {
      this.numkeysIndex = numkeysIndex;
      this.destinationFirst = destinationFirst;
    }

    @Override
    int count(byte[][] argv) {
      int num = numKeys(argv);
      return num == 0 ? 0 : destinationFirst ? num + 1 : num;
    }

    @Override
    int index(byte[][] argv, int n) {
      if (destinationFirst) {
        return n == 0 ? 1 : numkeysIndex + n;
      }
      return numkeysIndex + 1 + n;
    }

    /** Redis rejects (and runs nothing) unless numkeys is an integer in [1, arguments left]. */
    private int numKeys(byte[][] argv) {
      int argc = argv.length;
      if (argc <= numkeysIndex) {
        return 0;
      }
      long num = Bytes.parseLong(argv[numkeysIndex]);
      return num < 1 || num > argc - (numkeysIndex + 1) ? 0 : (int) num;
    }
  }

  /** The key at argv[1], then a destination key when an option names one. */
  abstract static class KeyAndDestination extends KeySpec {
    private KeyAndDestination() {}

    /** Position of the destination key, 0 if none. */
    abstract int destinationPos(byte[][] argv);

    @Override
    final int count(byte[][] argv) {
      return argv.length < 2 ? 0 : destinationPos(argv) > 0 ? 2 : 1;
    }

    @Override
    final int index(byte[][] argv, int n) {
      return n == 0 ? 1 : destinationPos(argv);
    }
  }

  /** SORT key [BY p] [LIMIT o c] [GET p ...] [ASC|DESC] [ALPHA] [STORE dest] (sortGetKeys). */
  static final class SortKeys extends KeyAndDestination {
    private SortKeys() {}

    /** The last STORE destination. */
    @Override
    int destinationPos(byte[][] argv) {
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
  }

  /**
   * MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw | AUTH2 user pw] [KEYS key...]
   * (migrateGetKeys).
   */
  static final class MigrateKeys extends KeySpec {
    private MigrateKeys() {}

    @Override
    int count(byte[][] argv) {
      int argc = argv.length;
      if (argc < 4) {
        return 0;
      }
      int keys = keysPos(argv);
      if (keys < 0) {
        return 1;
      }
      if (argv[3] == null || argv[3].length > 0) {
        return 0; // syntax error in Redis: key and KEYS together
      }
      return argc - keys - 1;
    }

    @Override
    int index(byte[][] argv, int n) {
      int keys = keysPos(argv);
      return (keys < 0 ? 3 : keys + 1) + n;
    }

    /** Position of the KEYS option, -1 if none. */
    private static int keysPos(byte[][] argv) {
      int argc = argv.length;
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
      return -1;
    }
  }

  /** GEORADIUS key lon lat radius unit ..., GEORADIUSBYMEMBER key member radius unit ... */
  static final class GeoradiusKeys extends KeyAndDestination {
    private GeoradiusKeys() {}

    /** The last STORE / STOREDIST destination (georadiusGetKeys). */
    @Override
    int destinationPos(byte[][] argv) {
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
  }

  /** XREAD / XREADGROUP [GROUP g c] [COUNT n] [BLOCK ms] [NOACK] STREAMS key... id... */
  static final class XreadKeys extends KeySpec {
    private XreadKeys() {}

    @Override
    int count(byte[][] argv) {
      int pos = streamsPos(argv, false);
      if (pos < 0) {
        return 0;
      }
      int rest = argv.length - pos - 1;
      return rest == 0 || (rest & 1) != 0 ? 0 : rest / 2;
    }

    @Override
    int index(byte[][] argv, int n) {
      return streamsPos(argv, false) + 1 + n;
    }
  }

  /** A container command (OBJECT, XINFO, CLIENT...): its subcommand, named by argv[1], decides. */
  static final class SubcommandKeys extends KeySpec {
    private final CommandSpec[] subcommands;

    private SubcommandKeys(CommandSpec[] subcommands) {
      this.subcommands = subcommands.clone();
    }

    /** The subcommand argv[1] names (any case), null when none of the known ones. */
    CommandSpec find(byte[][] argv) {
      if (argv == null || argv.length < 2 || argv[1] == null) {
        return null;
      }
      byte[] name = argv[1];
      for (CommandSpec sub : subcommands) {
        if (Bytes.eqIgnoreCase(name, sub.upperName)) {
          return sub;
        }
      }
      return null;
    }

    List<CommandSpec> all() {
      return List.of(subcommands);
    }

    @Override
    int count(byte[][] argv) {
      int argc = argv.length;
      if (argc < 2) {
        return 0;
      }
      CommandSpec sub = find(argv);
      return sub != null ? sub.keyCount(argv) : argc > 2 ? argc - 2 : 0;
    }

    @Override
    int index(byte[][] argv, int n) {
      CommandSpec sub = find(argv);
      return sub != null ? sub.keyIndex(argv, n) : 2 + n;
    }
  }

  /** Every argument from a fixed position on. */
  static final class AllFrom extends KeySpec {
    private final int first;

    private AllFrom(int first) {
      this.first = first;
    }

    @Override
    int count(byte[][] argv) {
      return argv.length > first ? argv.length - first : 0;
    }

    @Override
    int index(byte[][] argv, int n) {
      return first + n;
    }
  }
}
