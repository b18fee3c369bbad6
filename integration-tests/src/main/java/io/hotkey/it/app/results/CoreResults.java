package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;
import static io.hotkey.it.app.results.ResultName.reply;
import static io.hotkey.it.app.results.ResultName.text;

/**
 * The Jedis {@code core} scenario: each read of the hot keys before and while they are served
 * locally, the UnifiedJedis path, SRANDMEMBER, pipelines, transactions, and every write path read
 * back.
 */
public final class CoreResults {
  /** A read the scenario makes of its keys, by the name it reports it under. */
  public enum CoreRead {
    GET("get"),
    GET_BYTES("getBytes"),
    HGET("hget"),
    HGETALL("hgetall"),
    LRANGE("lrange"),
    SMEMBERS("smembers"),
    ZRANGE("zrange");

    private final String wireName;

    CoreRead(String wireName) {
      this.wireName = wireName;
    }

    @Override
    public String toString() {
      return wireName;
    }
  }

  public static final WarmUpResults WARMUP = WarmUpResults.named("core");
  public static final JmxResults AFTER_WARMUP_JMX = JmxResults.at("afterWarmup");
  public static final JmxResults AFTER_READS_JMX = JmxResults.at("afterReads");

  /** The JedisPooled or RedisClient class the UnifiedJedis reads went through. */
  public static final ResultName<String> POOLED_CLIENT = text("pooled.client");

  public static final ResultName<Long> POOLED_READS = number("pooled.n");
  public static final ResultName<Long> POOLED_MISMATCHES = number("pooled.mismatches");
  public static final ResultName<String> POOLED_READ_BACK = reply("pooled.readBack");

  /** A plain Jedis of the same JVM reading what the UnifiedJedis wrote. */
  public static final ResultName<String> POOLED_READ_BACK_VIA_JEDIS =
      reply("pooled.readBackViaJedis");

  /** The value read once the UnifiedJedis wrote the original back. */
  public static final ResultName<String> POOLED_RESTORED = reply("pooled.restored");

  public static final ResultName<Long> SRANDMEMBER_CALLS = number("srandmember.n");

  /** SRANDMEMBER answers that are not a member of the set. */
  public static final ResultName<Long> SRANDMEMBER_NOT_A_MEMBER = number("srandmember.notAMember");

  public static final ResultName<Long> PIPELINE_GETS = number("pipeline.n");
  public static final ResultName<Long> PIPELINE_MISMATCHES = number("pipeline.mismatches");
  public static final ResultName<Long> MULTI_GETS = number("multi.n");

  /** Answers inside MULTI/EXEC unlike the value; -1 when EXEC answered nil. */
  public static final ResultName<Long> MULTI_MISMATCHES = number("multi.mismatches");

  // each write, then a read on the writing connection and one on another connection
  public static final ResultName<String> PIPELINED_SET_READ_BACK = reply("write.pipeline.readBack");
  public static final ResultName<String> PIPELINED_SET_READ_BACK_OTHER =
      reply("write.pipeline.readBackOther");
  public static final ResultName<String> MULTI_SET_READ_BACK = reply("write.multi.readBack");
  public static final ResultName<String> MULTI_SET_READ_BACK_OTHER =
      reply("write.multi.readBackOther");
  public static final ResultName<String> SET_READ_BACK = reply("write.set.readBack");
  public static final ResultName<String> SET_READ_BACK_OTHER = reply("write.set.readBackOther");
  public static final ResultName<String> SET_READ_BACK_BYTES = reply("write.set.readBackBytes");
  public static final ResultName<String> APPEND_READ_BACK = reply("write.append.readBack");
  public static final ResultName<String> SETRANGE_READ_BACK = reply("write.setrange.readBack");
  public static final ResultName<String> EVAL_READ_BACK = reply("write.eval.readBack");
  public static final ResultName<String> HSET_READ_BACK = reply("write.hset.readBack");

  // canonical forms (sorted where Redis' order is not defined), as Ops writes them
  public static final ResultName<String> HSET_READ_BACK_ALL = text("write.hset.readBackAll");
  public static final ResultName<String> RPUSH_READ_BACK = text("write.rpush.readBack");
  public static final ResultName<String> SADD_READ_BACK = text("write.sadd.readBack");
  public static final ResultName<String> ZADD_READ_BACK = text("write.zadd.readBack");

  /** A read of the key after DEL: {@code null} when nothing was served in its place. */
  public static final ResultName<String> DEL_READ_BACK = reply("write.del.readBack");

  private CoreResults() {}

  /** The canonical form of {@code read}'s first answer, from Redis (nothing hot yet). */
  public static ResultName<String> firstValue(CoreRead read) {
    return text("first." + read + ".value");
  }

  /** The class of {@code read}'s first answer. */
  public static ResultName<String> firstClass(CoreRead read) {
    return text("first." + read + ".class");
  }

  /** How many times {@code read} ran once its key was hot. */
  public static ResultName<Long> readCount(CoreRead read) {
    return number("reads." + read + ".n");
  }

  /** Answers of {@code read} unlike the first (after the app scribbled over some, too). */
  public static ResultName<Long> readMismatches(CoreRead read) {
    return number("reads." + read + ".mismatches");
  }

  /** The canonical form of {@code read}'s last answer. */
  public static ResultName<String> lastValue(CoreRead read) {
    return text("reads." + read + ".value");
  }

  /** The class of {@code read}'s last answer. */
  public static ResultName<String> lastClass(CoreRead read) {
    return text("reads." + read + ".class");
  }

  /** Answers of {@code read} the app could not scribble over (Redis' never are). */
  public static ResultName<Long> immutableAnswers(CoreRead read) {
    return number("reads." + read + ".immutable");
  }
}
