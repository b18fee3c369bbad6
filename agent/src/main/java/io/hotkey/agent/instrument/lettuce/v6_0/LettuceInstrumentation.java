package io.hotkey.agent.instrument.lettuce.v6_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.core.TrackedReplyField;
import io.hotkey.agent.instrument.ClassLoaderMatchers;
import io.hotkey.agent.instrument.ClientInstrumentation;
import java.nio.ByteBuffer;
import java.util.Collection;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.modifier.FieldManifestation;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.implementation.FieldAccessor;

/**
 * Lettuce 6.x and 7.x, recognised by {@code io.lettuce.core.protocol.ProtocolVersion} (6.0+). The
 * same three hook points hold on both lines:
 *
 * <ul>
 *   <li>{@code RedisChannelHandler.dispatch(RedisCommand)} and {@code dispatch(Collection)}: every
 *       command of every API (sync, async, reactive; standalone, Pub/Sub and cluster connections)
 *       passes here before it is written; a hot read is answered here by replaying a recorded
 *       reply;
 *   <li>{@code RedisStateMachine.safe*}: the decoder's funnel for every callback into a command's
 *       {@code CommandOutput}; it tells when a write's reply starts (its keys are invalidated then,
 *       before the application can see the completion) and records the reply of a fill;
 *   <li>{@code Command.complete/completeExceptionally/cancel}: the end of every command, to release
 *       what an unanswered command left behind;
 *   <li>{@code DefaultEndpoint.write}: commands written around dispatch; {@code
 *       RedisChannelHandler.activated/deactivated}: reconnects.
 * </ul>
 *
 * {@code CommandOutput} and {@code CommandArgs}, when they load after the agent, also gain a field
 * each ({@link TrackedReplyField}, {@link EncodedArgsField}).
 */
public final class LettuceInstrumentation implements ClientInstrumentation {
  private static final String OUTPUT = "io.lettuce.core.output.CommandOutput";

  @Override
  public String name() {
    return "lettuce-6+";
  }

  @Override
  public AgentBuilder extend(AgentBuilder builder, AgentBuilder.Transformer.ForAdvice advice) {
    return builder
        .type(
            named("io.lettuce.core.RedisChannelHandler"),
            ClassLoaderMatchers.hasClass("io.lettuce.core.protocol.ProtocolVersion"))
        .transform(
            advice
                .advice(
                    named("dispatch")
                        .and(takesArguments(1))
                        .and(takesArgument(0, named("io.lettuce.core.protocol.RedisCommand"))),
                    LettuceDispatchAdvice.class.getName())
                .advice(
                    named("dispatch")
                        .and(takesArguments(1))
                        .and(takesArgument(0, Collection.class)),
                    LettuceDispatchBatchAdvice.class.getName())
                .advice(
                    named("setAutoFlushCommands").and(takesArguments(boolean.class)),
                    LettuceAutoFlushAdvice.class.getName())
                .advice(
                    named("activated").or(named("deactivated")).and(takesArguments(0)),
                    LettuceConnectionResetAdvice.class.getName()))
        .type(
            named("io.lettuce.core.protocol.DefaultEndpoint"),
            ClassLoaderMatchers.hasClass("io.lettuce.core.protocol.ProtocolVersion"))
        .transform(
            advice.advice(
                named("write")
                    .and(takesArguments(1))
                    .and(
                        takesArgument(0, named("io.lettuce.core.protocol.RedisCommand"))
                            .or(takesArgument(0, Collection.class))),
                LettuceEndpointWriteAdvice.class.getName()))
        .type(
            named("io.lettuce.core.protocol.RedisStateMachine"),
            ClassLoaderMatchers.hasClass("io.lettuce.core.protocol.ProtocolVersion"))
        .transform(
            advice
                .advice(
                    named("safeSet")
                        .or(named("safeSetSingle"))
                        .and(takesArguments(3))
                        .and(takesArgument(0, named(OUTPUT)))
                        .and(takesArgument(1, ByteBuffer.class)),
                    LettuceReplyBytesAdvice.class.getName())
                .advice(
                    named("safeSetBigNumber")
                        .and(takesArguments(3))
                        .and(takesArgument(0, named(OUTPUT)))
                        .and(takesArgument(1, ByteBuffer.class)),
                    LettuceReplyBigNumberAdvice.class.getName())
                .advice(
                    named("safeSetError")
                        .and(takesArguments(3))
                        .and(takesArgument(0, named(OUTPUT)))
                        .and(takesArgument(1, ByteBuffer.class)),
                    LettuceReplyErrorAdvice.class.getName())
                .advice(
                    named("safeSet")
                        .and(takesArguments(3))
                        .and(takesArgument(0, named(OUTPUT)))
                        .and(takesArgument(1, long.class)),
                    LettuceReplyLongAdvice.class.getName())
                .advice(
                    named("safeSet")
                        .and(takesArguments(3))
                        .and(takesArgument(0, named(OUTPUT)))
                        .and(takesArgument(1, double.class)),
                    LettuceReplyDoubleAdvice.class.getName())
                .advice(
                    named("safeSet")
                        .and(takesArguments(3))
                        .and(takesArgument(0, named(OUTPUT)))
                        .and(takesArgument(1, boolean.class)),
                    LettuceReplyBooleanAdvice.class.getName())
                .advice(
                    named("safeMultiArray")
                        .or(named("safeMultiSet"))
                        .or(named("safeMultiMap"))
                        .and(takesArguments(3))
                        .and(takesArgument(0, named(OUTPUT)))
                        .and(takesArgument(1, int.class)),
                    LettuceReplyAggregateAdvice.class.getName()))
        .type(
            named("io.lettuce.core.protocol.Command"),
            ClassLoaderMatchers.hasClass("io.lettuce.core.protocol.ProtocolVersion"))
        .transform(
            advice.advice(
                named("complete")
                    .and(takesArguments(0))
                    .or(named("cancel").and(takesArguments(0)))
                    .or(named("completeExceptionally").and(takesArguments(1))),
                LettuceCommandDoneAdvice.class.getName()));
  }

  /**
   * The reply's field is volatile: a command may end on another thread than its connection's (a
   * timeout, a cancellation). The arguments' field is plain, written once per command as it is
   * built: it travels to the dispatching thread (another one under reactive APIs) with the argument
   * list it sits beside, which Lettuce itself reads there unsynchronized; a volatile write was a
   * full fence per command on the application's thread.
   */
  @Override
  public AgentBuilder extendAtLoad(AgentBuilder builder) {
    return builder
        .type(
            named(OUTPUT),
            ClassLoaderMatchers.hasClass("io.lettuce.core.protocol.ProtocolVersion")
                .and(ClassLoaderMatchers.seesAgentClass(TrackedReplyField.class)))
        .transform(
            (type, description, loader, module, domain) ->
                type.defineField(
                        TrackedReplyField.NAME,
                        Object.class,
                        Visibility.PRIVATE,
                        FieldManifestation.VOLATILE)
                    .implement(TrackedReplyField.class)
                    .intercept(FieldAccessor.ofField(TrackedReplyField.NAME)))
        .type(
            named("io.lettuce.core.protocol.CommandArgs"),
            ClassLoaderMatchers.hasClass("io.lettuce.core.protocol.ProtocolVersion")
                .and(ClassLoaderMatchers.seesAgentClass(EncodedArgsField.class)))
        .transform(
            (type, description, loader, module, domain) ->
                type.defineField(
                        EncodedArgsField.NAME,
                        Object.class,
                        Visibility.PRIVATE,
                        FieldManifestation.PLAIN)
                    .implement(EncodedArgsField.class)
                    .intercept(FieldAccessor.ofField(EncodedArgsField.NAME))
                    .visit(
                        Advice.to(LettuceAddKeyAdvice.class)
                            .on(named("addKey").and(takesArguments(1))))
                    .visit(
                        Advice.to(LettuceAddValueAdvice.class)
                            .on(named("addValue").and(takesArguments(1)))));
  }
}
