package io.hotkey.agent.instrument;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import net.bytebuddy.agent.ByteBuddyAgent;

/**
 * Modules installed in the test's own JVM the way the agent installs them ({@link ModuleInstaller},
 * with Byte Buddy's agent attached at run time), recording what was transformed and what failed.
 */
public final class InstalledModules implements AutoCloseable, InstrumentationListener {
  private final Instrumentation instrumentation = ByteBuddyAgent.install();
  private final List<String> transformed = new CopyOnWriteArrayList<>();
  private final List<Throwable> errors = new CopyOnWriteArrayList<>();
  private final List<ClassFileTransformer> transformers;

  public InstalledModules(InstrumentationModule... modules) {
    transformers =
        ModuleInstaller.install(
            instrumentation,
            List.of(modules),
            Map.of(),
            () -> this,
            new ModuleHealth(List.of()),
            null,
            null);
  }

  /** The names of the classes transformed so far. */
  public List<String> transformed() {
    return transformed;
  }

  public List<Throwable> errors() {
    return errors;
  }

  @Override
  public void transformed(String typeName, boolean retransformed) {
    transformed.add(typeName);
  }

  @Override
  public void failed(String typeName, Throwable error) {
    errors.add(new IllegalStateException(typeName, error));
  }

  /** Classes already transformed stay so; the tests deactivate what their advice calls. */
  @Override
  public void close() {
    transformers.forEach(instrumentation::removeTransformer);
  }
}
