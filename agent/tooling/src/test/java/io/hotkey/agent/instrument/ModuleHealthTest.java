package io.hotkey.agent.instrument;

import static net.bytebuddy.matcher.ElementMatchers.any;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.core.ServingGate;
import io.hotkey.agent.core.ServingPermit;
import io.hotkey.agent.instrument.health.Broken;
import io.hotkey.agent.instrument.health.Connection;
import io.hotkey.agent.instrument.health.Hooked;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.matcher.ElementMatcher;
import org.junit.jupiter.api.Test;

/**
 * All or nothing per module and class loader, with the module installed in this JVM as the agent
 * installs it: a module serves until a class it names is left unwoven, then counts only.
 */
class ModuleHealthTest {
  private static final String LIBRARY = "io.hotkey.agent.instrument.health.";

  @Test
  void aModuleStopsServingInItsLoaderOnceAClassItNamesFailsToWeave() {
    Instrumentation instrumentation = ByteBuddyAgent.install();
    HealthModule module = new HealthModule();
    ModuleHealth health = new ModuleHealth(List.of(module));
    List<String> failures = new CopyOnWriteArrayList<>();
    List<ClassFileTransformer> transformers =
        ModuleInstaller.install(
            instrumentation,
            List.of(module),
            Map.of(),
            () -> new FailureList(failures),
            health,
            LIBRARY + "Broken",
            null);
    try {
      assertEquals("advised", Hooked.answer(), "the module's other class was woven");
      ServingPermit permit = health.permitFor(new Connection());
      assertTrue(permit.granted(), "serves while every class it names that loaded is woven");
      assertEquals(
          List.of("health-test serving in " + ModuleHealth.loaderName(loader()) + " null"),
          describe(health.states()));

      assertEquals("original", Broken.answer(), "the failed class runs as it is");
      assertFalse(permit.granted(), "the permit already given is revoked");
      assertSame(permit, health.permitFor(new Connection()), "one permit per module and loader");
      ServingGate.ModuleState state = health.states().get(0);
      assertEquals(ServingGate.ModuleState.COUNTING, state.state);
      assertTrue(
          state.reason.startsWith(LIBRARY + "Broken is not instrumented: "), () -> state.reason);
      assertTrue(state.reason.contains("hotkey.debug.fail-weaving"), () -> state.reason);
      assertEquals(List.of(LIBRARY + "Broken"), failures, "the listener was told as well");
    } finally {
      transformers.forEach(instrumentation::removeTransformer);
    }
  }

  @Test
  void aConnectionOfNoGatedLibraryAlwaysServes() {
    ModuleHealth health = new ModuleHealth(List.of(new HealthModule()));
    assertSame(ServingPermit.ALWAYS, health.permitFor(new Object()));
    assertTrue(health.states().isEmpty());
  }

  @Test
  void aClassLeftUnwovenIsReportedBeforeTheModulesFirstConnection() {
    ModuleHealth health = new ModuleHealth(List.of(new HealthModule()));
    health.unwoven(LIBRARY + "Hooked", loader(), "it loaded while the agent was starting");
    ServingGate.ModuleState state = health.states().get(0);
    assertEquals(ServingGate.ModuleState.COUNTING, state.state);
    assertFalse(health.permitFor(new Connection()).granted());
    assertNull(
        new ModuleHealth(List.of(new HealthModule())).states().stream().findAny().orElse(null));
  }

  private static ClassLoader loader() {
    return ModuleHealthTest.class.getClassLoader();
  }

  private static List<String> describe(List<ServingGate.ModuleState> states) {
    return states.stream()
        .map(s -> s.module + " " + s.state + " in " + s.loader + " " + s.reason)
        .toList();
  }

  private static final class HealthModule implements InstrumentationModule {
    @Override
    public String name() {
      return "health-test";
    }

    @Override
    public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
      return any();
    }

    @Override
    public List<String> libraryPackages() {
      return List.of(LIBRARY.replace('.', '/'));
    }

    @Override
    public List<TypeInstrumentation> typeInstrumentations() {
      return List.of(advising("Hooked"), advising("Broken"));
    }

    private static TypeInstrumentation advising(String simpleName) {
      return new TypeInstrumentation() {
        @Override
        public String typeName() {
          return LIBRARY + simpleName;
        }

        @Override
        public void transform(TypeTransformer transformer) {
          // the start-ahead test's advice: it replaces any answer() the same way
          transformer.applyAdvice(
              named("answer"), "io.hotkey.agent.instrument.startahead.AnswerAdvice");
        }
      };
    }
  }

  private static final class FailureList implements InstrumentationListener {
    private final List<String> failures;

    FailureList(List<String> failures) {
      this.failures = failures;
    }

    @Override
    public void transformed(String typeName, boolean retransformed) {}

    @Override
    public void failed(String typeName, Throwable error) {
      failures.add(typeName);
    }
  }
}
