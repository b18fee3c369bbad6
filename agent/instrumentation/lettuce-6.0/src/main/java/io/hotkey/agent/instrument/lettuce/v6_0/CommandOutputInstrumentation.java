package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.TrackedReplyField;
import io.hotkey.agent.instrument.ClassLoaderMatchers;
import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;
import net.bytebuddy.description.modifier.FieldManifestation;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.implementation.FieldAccessor;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * {@code io.lettuce.core.output.CommandOutput}, when it loads after the agent, gains the {@link
 * TrackedReplyField}: the core finds what it waits for in a reply in one field read. The field is
 * volatile: a command may end on another thread than its connection's (a timeout, a cancellation).
 */
public final class CommandOutputInstrumentation implements TypeInstrumentation {
  @Override
  public String typeName() {
    return Lettuce6InstrumentationModule.OUTPUT;
  }

  /** A class made to implement an agent interface can be defined only where that interface is. */
  @Override
  public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
    return ClassLoaderMatchers.seesAgentClass(TrackedReplyField.class);
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.addMembers(
        type ->
            type.defineField(
                    TrackedReplyField.NAME,
                    Object.class,
                    Visibility.PRIVATE,
                    FieldManifestation.VOLATILE)
                .implement(TrackedReplyField.class)
                .intercept(FieldAccessor.ofField(TrackedReplyField.NAME)));
  }
}
