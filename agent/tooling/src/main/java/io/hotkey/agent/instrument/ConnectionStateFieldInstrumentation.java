package io.hotkey.agent.instrument;

import io.hotkey.agent.core.ConnectionStateField;
import net.bytebuddy.description.modifier.FieldManifestation;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.implementation.FieldAccessor;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * A client's connection class, when it loads after the agent, gains the {@link
 * ConnectionStateField}. A member of its own, apart from the class's advice, which thus still
 * reaches a class loaded before the agent. The field is volatile: a pooled connection passes from
 * thread to thread, and the state it holds is created by whichever thread used it first.
 */
public final class ConnectionStateFieldInstrumentation implements TypeInstrumentation {
  private final String typeName;

  /**
   * @param typeName the class the client's hooks are given as their connection, or its superclass
   */
  public ConnectionStateFieldInstrumentation(String typeName) {
    this.typeName = typeName;
  }

  @Override
  public String typeName() {
    return typeName;
  }

  /** A class made to implement an agent interface can be defined only where that interface is. */
  @Override
  public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
    return ClassLoaderMatchers.seesAgentClass(ConnectionStateField.class);
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.addMembers(
        type ->
            type.defineField(
                    ConnectionStateField.NAME,
                    Object.class,
                    Visibility.PRIVATE,
                    FieldManifestation.VOLATILE)
                .implement(ConnectionStateField.class)
                .intercept(FieldAccessor.ofField(ConnectionStateField.NAME)));
  }
}
