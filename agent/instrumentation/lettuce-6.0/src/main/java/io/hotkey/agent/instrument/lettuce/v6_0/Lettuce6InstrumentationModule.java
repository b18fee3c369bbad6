package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.ConnectionStateField;
import io.hotkey.agent.core.TrackedReplyField;
import io.hotkey.agent.instrument.ClassLoaderMatchers;
import io.hotkey.agent.instrument.ConnectionStateFieldInstrumentation;
import io.hotkey.agent.instrument.HelperClasses;
import io.hotkey.agent.instrument.InstrumentationModule;
import io.hotkey.agent.instrument.TypeInstrumentation;
import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Lettuce 6.x and 7.x, recognised by {@code io.lettuce.core.protocol.ProtocolVersion} (6.0+;
 * Lettuce 5 is never touched). The same hook points hold on both lines:
 *
 * <ul>
 *   <li>{@code RedisChannelHandler.dispatch(RedisCommand)} and {@code dispatch(Collection)}: every
 *       command of every API (sync, async, reactive; standalone, Pub/Sub and cluster connections)
 *       passes here before it is written; a hot read is answered here by replaying a recorded reply
 *       ({@link RedisChannelHandlerInstrumentation});
 *   <li>{@code RedisStateMachine.safe*}: the decoder's funnel for every callback into a command's
 *       {@code CommandOutput}; it tells when a write's reply starts (its keys are invalidated then,
 *       before the application can see the completion) and records the reply of a fill ({@link
 *       RedisStateMachineInstrumentation});
 *   <li>{@code Command.complete/completeExceptionally/cancel}: the end of every command, to release
 *       what an unanswered command left behind ({@link CommandInstrumentation});
 *   <li>a hot read failed after it was sent (serve-stale on error): {@code completeExceptionally}
 *       of the wrapping commands, {@code Futures.awaitOrCancel} (the sync API's wait) and {@code
 *       CommandHandler.getCommandOutput} (where a late reply goes) ({@link
 *       CommandFailureInstrumentation}, {@link SyncWaitInstrumentation}, {@link
 *       CommandHandlerInstrumentation});
 *   <li>{@code DefaultEndpoint.write}: commands written around dispatch, and the channel a fill is
 *       read from ({@link DefaultEndpointInstrumentation}); {@code
 *       RedisChannelHandler.activated/deactivated}: reconnects;
 *   <li>{@code RedisHandshake.initialize} and {@code SslChannelInitializer.initChannel}: how each
 *       channel logs in and what its TLS trusts, for the agent's own tracking connection ({@link
 *       RedisHandshakeInstrumentation}, {@link SslChannelInitializerInstrumentation}).
 * </ul>
 *
 * {@code CommandOutput}, {@code CommandArgs} and {@code RedisChannelHandler}, when they load after
 * the agent, also gain a field each ({@link TrackedReplyField}, {@link EncodedArgsField}, {@link
 * ConnectionStateField}).
 */
public final class Lettuce6InstrumentationModule implements InstrumentationModule {
  static final String OUTPUT = "io.lettuce.core.output.CommandOutput";

  @Override
  public String name() {
    return "lettuce-6+";
  }

  @Override
  public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
    return ClassLoaderMatchers.hasClass("io.lettuce.core.protocol.ProtocolVersion");
  }

  @Override
  public List<String> libraryPackages() {
    return List.of("io/lettuce/core/");
  }

  @Override
  public List<TypeInstrumentation> typeInstrumentations() {
    List<TypeInstrumentation> hooks = new ArrayList<>(commandHooks());
    hooks.addAll(
        List.of(
            new RedisHandshakeInstrumentation(),
            new SslChannelInitializerInstrumentation(),
            new CommandFailureInstrumentation(CommandFailureInstrumentation.ASYNC_COMMAND),
            new CommandFailureInstrumentation(CommandFailureInstrumentation.COMMAND_WRAPPER),
            new CommandFailureInstrumentation(CommandFailureInstrumentation.CLUSTER_COMMAND),
            new SyncWaitInstrumentation(),
            new CommandHandlerInstrumentation()));
    return hooks;
  }

  /**
   * Counting, invalidation and serving: the hooks whose classes, methods and fields Lettuce 5 has
   * too.
   */
  public static List<TypeInstrumentation> commandHooks() {
    return List.of(
        new RedisChannelHandlerInstrumentation(),
        new ConnectionStateFieldInstrumentation(RedisChannelHandlerInstrumentation.CHANNEL_HANDLER),
        new DefaultEndpointInstrumentation(),
        new RedisStateMachineInstrumentation(),
        new CommandInstrumentation(),
        new CommandOutputInstrumentation(),
        new CommandArgsInstrumentation());
  }

  @Override
  public List<HelperClasses> helperClasses() {
    return List.of(Helpers.LETTUCE_ARGUMENTS);
  }

  /** Created on first use, as the module is before any Lettuce class loads. */
  private static final class Helpers {
    /**
     * {@link LettuceLogins}, {@link LettuceArgumentsBuffer}, {@link LettuceArguments}, {@link
     * LocalAnswerSpan}, {@link LocalAnswerEndpoint}, {@link LettuceReplay}, {@link
     * LettuceConnectionCheck} and {@link LettuceStaleAnswers}, defined next to Lettuce's {@code
     * ProtocolKeyword}.
     */
    static final HelperClasses LETTUCE_ARGUMENTS =
        new HelperClasses(
            "io.lettuce.core.protocol.ProtocolKeyword",
            "io/hotkey/agent/instrument/lettuce/v6_0/",
            List.of(
                "LettuceLogins",
                // LettuceArguments' verification loads it
                "LettuceArgumentsBuffer",
                "LettuceArguments",
                "LocalAnswerSpan",
                "LocalAnswerEndpoint",
                "LettuceReplay",
                "LettuceConnectionCheck",
                "LettuceStaleAnswers"));
  }
}
