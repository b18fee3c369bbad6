package io.hotkey.agent.instrument.jedis.v3_0;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.not;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;

/**
 * Jedis 3's synchronous API, {@code redis.clients.jedis.BinaryJedis} (binary keys) or {@code
 * redis.clients.jedis.Jedis} (String keys): every public method marks a call. {@code JedisPool},
 * {@code JedisSentinelPool}, {@code ShardedJedis} and {@code JedisCluster} all read through these
 * methods of the {@code Jedis} they borrow or pick.
 */
final class Jedis3ApiInstrumentation implements TypeInstrumentation {
  private final String typeName;

  Jedis3ApiInstrumentation(String typeName) {
    this.typeName = typeName;
  }

  @Override
  public String typeName() {
    return typeName;
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(
        isMethod().and(isPublic()).and(not(isStatic())).and(not(isSynthetic())),
        Jedis3CallAdvice.class.getName());
  }
}
