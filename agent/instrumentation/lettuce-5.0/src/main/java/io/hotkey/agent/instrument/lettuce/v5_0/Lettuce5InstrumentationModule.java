package io.hotkey.agent.instrument.lettuce.v5_0;

import static net.bytebuddy.matcher.ElementMatchers.not;

import io.hotkey.agent.instrument.ClassLoaderMatchers;
import io.hotkey.agent.instrument.HelperClasses;
import io.hotkey.agent.instrument.InstrumentationModule;
import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.lettuce.v6_0.Lettuce6InstrumentationModule;
import java.util.List;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Lettuce 5.0 to 5.3, recognised by {@code io.lettuce.core.RedisClient} without Lettuce 6's {@code
 * ProtocolVersion}. Counting, invalidation and serving use the Lettuce 6 module's hooks, whose
 * classes, methods and fields are the same on 5.x: dispatch and manual flushing on {@code
 * RedisChannelHandler}, {@code DefaultEndpoint.write}, the end of {@code Command}, the arguments of
 * {@code CommandArgs}, the field on {@code CommandOutput}, and the decoder's {@code
 * RedisStateMachine.safe*} callbacks (RESP2 only: bytes, integers, errors and {@code safeMulti}).
 *
 * <p>What has no counterpart on 5.x is left out. There is no {@code RedisHandshake} (Lettuce 5
 * sends {@code AUTH} and {@code SELECT} as ordinary commands after connecting), so the agent's own
 * tracking connection reaches a channel's remote address without a login and without TLS: a server
 * that needs either refuses it, and its replies are then bounded by the TTL alone unless {@code
 * hotkey.redis.uri} gives the agent its login. Serve-stale-on-error is not woven: a failed read
 * fails as it would without the agent. A read answered locally gets no tracing span (5.x's tracing
 * API differs).
 */
public final class Lettuce5InstrumentationModule implements InstrumentationModule {
  @Override
  public String name() {
    return "lettuce-5";
  }

  @Override
  public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
    return ClassLoaderMatchers.hasClass("io.lettuce.core.RedisClient")
        .and(not(ClassLoaderMatchers.hasClass("io.lettuce.core.protocol.ProtocolVersion")));
  }

  @Override
  public List<String> libraryPackages() {
    return List.of("io/lettuce/core/");
  }

  @Override
  public List<TypeInstrumentation> typeInstrumentations() {
    return Lettuce6InstrumentationModule.commandHooks();
  }

  @Override
  public List<HelperClasses> helperClasses() {
    return List.of(Helpers.LETTUCE_ARGUMENTS);
  }

  /** Created on first use, as the module is before any Lettuce class loads. */
  private static final class Helpers {
    /**
     * The Lettuce 6 module's helpers that the shared advice calls, next to {@code ProtocolKeyword}.
     */
    static final HelperClasses LETTUCE_ARGUMENTS =
        new HelperClasses(
            "io.lettuce.core.protocol.ProtocolKeyword",
            "io/hotkey/agent/instrument/lettuce/v6_0/",
            List.of(
                "LettuceLogins",
                "LettuceArgumentsBuffer",
                "LettuceArguments",
                "LocalAnswerSpan",
                "LettuceReplay",
                "LettuceConnectionCheck"));
  }
}
