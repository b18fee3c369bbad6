package io.hotkey.agent.instrument;

import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.core.ServingGate;
import io.hotkey.agent.core.ServingPermit;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * All or nothing per client module and class loader: a module serves reads in a loader only while
 * every type it instruments there has either been woven or not loaded at all (a class that is not
 * loaded runs no command). A type left unwoven (its transformation failed, the JVM refused to
 * retransform it, or it loaded while the agent could not weave it) revokes the module's permit in
 * that loader for good: its connections are still counted and invalidate what they write, and no
 * longer answer reads locally. One log line names the module, the loader, the class and the cause.
 */
public final class ModuleHealth implements ServingGate {
  private final List<InstrumentationModule> clientModules;

  /** Classes left unwoven, by their defining loader: class name to cause. */
  private final Map<ClassLoader, Map<String, String>> unwoven = new WeakHashMap<>();

  /** Each module's state in each loader where it had a connection or an unwoven class. */
  private final Map<ClassLoader, Map<InstrumentationModule, ModuleInLoader>> states =
      new WeakHashMap<>();

  private final ClassValue<ServingPermit> permits =
      new ClassValue<>() {
        @Override
        protected ServingPermit computeValue(Class<?> type) {
          return permitOf(type);
        }
      };

  /** The Redis-client modules: only they serve, so only they are gated. */
  public ModuleHealth(List<InstrumentationModule> clientModules) {
    this.clientModules = List.copyOf(clientModules);
  }

  /**
   * A class a module names was left unwoven in {@code loader}. Called where the weaving failed,
   * possibly while the JVM defines a class: it only records, and revokes the permits already given.
   */
  void unwoven(String typeName, ClassLoader loader, String cause) {
    synchronized (this) {
      unwoven.computeIfAbsent(loader, l -> new LinkedHashMap<>()).putIfAbsent(typeName, cause);
      Map<InstrumentationModule, ModuleInLoader> inLoader = states.get(loader);
      if (inLoader != null) {
        for (ModuleInLoader state : inLoader.values()) {
          state.check();
        }
      }
    }
  }

  @Override
  public ServingPermit permitFor(Object connection) {
    return permits.get(connection.getClass());
  }

  /**
   * The permit of the module whose library class {@code type} is or extends, in the loader that
   * defined that library class; any other connection may always serve.
   */
  private ServingPermit permitOf(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      InstrumentationModule module = moduleOf(c);
      if (module != null) {
        synchronized (this) {
          return state(module, c.getClassLoader()).permit;
        }
      }
    }
    return ServingPermit.ALWAYS;
  }

  private InstrumentationModule moduleOf(Class<?> type) {
    String internalName = type.getName().replace('.', '/');
    for (InstrumentationModule module : clientModules) {
      for (String library : module.libraryPackages()) {
        if (internalName.startsWith(library)
            && module.classLoaderMatcher().matches(type.getClassLoader())) {
          return module;
        }
      }
    }
    return null;
  }

  private ModuleInLoader state(InstrumentationModule module, ClassLoader loader) {
    ModuleInLoader state =
        states
            .computeIfAbsent(loader, l -> new LinkedHashMap<>())
            .computeIfAbsent(module, m -> new ModuleInLoader(m, loader));
    state.check();
    return state;
  }

  @Override
  public synchronized List<ModuleState> states() {
    // an unwoven class is reported even before its module's first connection
    for (Map.Entry<ClassLoader, Map<String, String>> failed : unwoven.entrySet()) {
      for (InstrumentationModule module : clientModules) {
        if (module.classLoaderMatcher().matches(failed.getKey())
            && names(module, failed.getKey()).stream().anyMatch(failed.getValue()::containsKey)) {
          state(module, failed.getKey());
        }
      }
    }
    List<ModuleState> all = new ArrayList<>();
    for (Map<InstrumentationModule, ModuleInLoader> inLoader : states.values()) {
      for (ModuleInLoader state : inLoader.values()) {
        all.add(state.describe());
      }
    }
    return all;
  }

  @Override
  public List<String> modules() {
    List<String> names = new ArrayList<>();
    for (InstrumentationModule module : clientModules) {
      names.add(module.name());
    }
    return names;
  }

  /** The classes {@code module} weaves in {@code loader}. */
  private static List<String> names(InstrumentationModule module, ClassLoader loader) {
    List<String> names = new ArrayList<>();
    for (TypeInstrumentation type : module.typeInstrumentations()) {
      if (!type.matchesSubtypes() && type.classLoaderMatcher().matches(loader)) {
        names.add(type.typeName());
      }
    }
    return names;
  }

  static String loaderName(ClassLoader loader) {
    if (loader == null) {
      return "bootstrap";
    }
    String name = loader.getName();
    return (name != null ? name : loader.getClass().getName())
        + "@"
        + Integer.toHexString(System.identityHashCode(loader));
  }

  /** One module in one loader; guarded by the {@link ModuleHealth} it belongs to. */
  private final class ModuleInLoader {
    final InstrumentationModule module;

    /** Weak: the state is a value of a map weakly keyed by the same loader. */
    final WeakReference<ClassLoader> loader;

    final String loaderName;
    final List<String> names;
    final ServingPermit permit = new ServingPermit(true);
    String reason;

    ModuleInLoader(InstrumentationModule module, ClassLoader loader) {
      this.module = module;
      this.loader = new WeakReference<>(loader);
      this.loaderName = loaderName(loader);
      this.names = names(module, loader);
    }

    void check() {
      if (reason != null) {
        return;
      }
      Map<String, String> failed = unwoven.get(loader.get());
      if (failed == null) {
        return;
      }
      for (String name : names) {
        String cause = failed.get(name);
        if (cause != null) {
          reason = name + " is not instrumented: " + cause;
          permit.set(false);
          AgentLog.info(
              module.name()
                  + " stops serving in class loader "
                  + loaderName
                  + ": "
                  + reason
                  + "; its commands are still counted and invalidate");
          return;
        }
      }
    }

    ModuleState describe() {
      return new ModuleState(
          module.name(),
          loaderName,
          reason == null ? ModuleState.SERVING : ModuleState.COUNTING,
          reason);
    }
  }
}
