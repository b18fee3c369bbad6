package io.hotkey.agent.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.core.ConnectionStateField;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.matcher.ElementMatchers;
import org.junit.jupiter.api.Test;

class ConnectionStateFieldInstrumentationTest {
  private static final String CONNECTION =
      "io.hotkey.agent.instrument.connectionfield.PooledConnection";

  private final ModuleWeaver weaver =
      new ModuleWeaver(
          List.of(new ConnectionModule()),
          new FailingListener(),
          new ModuleHealth(List.of()),
          null,
          null);

  @Test
  void theConnectionClassGainsAVolatileFieldAsItLoadsAndNothingWhenRetransformed()
      throws Exception {
    ClassLoader loader = ConnectionStateFieldInstrumentationTest.class.getClassLoader();
    byte[] classFile = classFile(loader);
    String internalName = CONNECTION.replace('.', '/');

    byte[] woven = weaver.transform(loader, internalName, null, classFile, true);
    assertNull(
        weaver.transform(loader, internalName, null, classFile, false),
        "the advice pass, which also retransforms loaded classes, changed it");

    Class<?> connection = new DefiningLoader(loader).define(CONNECTION, woven);
    assertTrue(ConnectionStateField.class.isAssignableFrom(connection), "no field interface");
    Field field = connection.getDeclaredField(ConnectionStateField.NAME);
    assertTrue(Modifier.isVolatile(field.getModifiers()), "a pooled connection changes threads");
    assertFalse(Modifier.isPublic(field.getModifiers()));
    ConnectionStateField instance =
        (ConnectionStateField) connection.getConstructor().newInstance();
    assertNull(instance.hotkey$connectionState());
    Object state = new Object();
    instance.hotkey$connectionState(state);
    assertSame(state, instance.hotkey$connectionState());
  }

  @Test
  void aLoaderThatDoesNotSeeTheAgentsInterfaceIsLeftAlone() {
    ClassLoader isolated = new ClassLoader(null) {};
    assertFalse(
        new ConnectionStateFieldInstrumentation(CONNECTION).classLoaderMatcher().matches(isolated));
    assertEquals(CONNECTION, new ConnectionStateFieldInstrumentation(CONNECTION).typeName());
  }

  private static byte[] classFile(ClassLoader loader) throws Exception {
    try (InputStream in = loader.getResourceAsStream(CONNECTION.replace('.', '/') + ".class")) {
      return in.readAllBytes();
    }
  }

  /** Defines a woven class beside the agent's classes, as the client's loader would. */
  private static final class DefiningLoader extends ClassLoader {
    DefiningLoader(ClassLoader parent) {
      super(parent);
    }

    Class<?> define(String name, byte[] classFile) {
      return defineClass(name, classFile, 0, classFile.length);
    }
  }

  private static final class ConnectionModule implements InstrumentationModule {
    @Override
    public String name() {
      return "connections";
    }

    @Override
    public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
      return ElementMatchers.any();
    }

    @Override
    public List<String> libraryPackages() {
      return List.of();
    }

    @Override
    public List<TypeInstrumentation> typeInstrumentations() {
      return List.of(new ConnectionStateFieldInstrumentation(CONNECTION));
    }

    @Override
    public List<HelperClasses> helperClasses() {
      return List.of();
    }
  }
}
