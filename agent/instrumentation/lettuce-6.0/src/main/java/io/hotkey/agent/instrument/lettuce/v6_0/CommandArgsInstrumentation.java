package io.hotkey.agent.instrument.lettuce.v6_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.ClassLoaderMatchers;
import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;
import net.bytebuddy.description.modifier.FieldManifestation;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.implementation.FieldAccessor;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * {@code io.lettuce.core.protocol.CommandArgs}, when it loads after the agent, gains the {@link
 * EncodedArgsField} and records a first key and value as they are added ({@link
 * LettuceAddKeyAdvice}, {@link LettuceAddValueAdvice}). The field is plain, written once per
 * command as it is built: it travels to the dispatching thread (another one under reactive APIs)
 * with the argument list it sits beside, which Lettuce itself reads there unsynchronized; a
 * volatile write was a full fence per command on the application's thread.
 */
public final class CommandArgsInstrumentation implements TypeInstrumentation {
  @Override
  public String typeName() {
    return "io.lettuce.core.protocol.CommandArgs";
  }

  /** A class made to implement an agent interface can be defined only where that interface is. */
  @Override
  public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
    return ClassLoaderMatchers.seesAgentClass(EncodedArgsField.class);
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer
        .addMembers(
            type ->
                type.defineField(
                        EncodedArgsField.NAME,
                        Object.class,
                        Visibility.PRIVATE,
                        FieldManifestation.PLAIN)
                    .implement(EncodedArgsField.class)
                    .intercept(FieldAccessor.ofField(EncodedArgsField.NAME)))
        .applyAdvice(named("addKey").and(takesArguments(1)), LettuceAddKeyAdvice.class.getName())
        .applyAdvice(
            named("addValue").and(takesArguments(1)), LettuceAddValueAdvice.class.getName());
  }
}
