package io.hotkey.agent.instrument;

import io.hotkey.agent.core.AgentLog;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Installs the modules so that a JVM that loads none of their classes pays next to nothing, the way
 * OpenTelemetry's agent narrows what it matches at class load:
 *
 * <ol>
 *   <li>every class load passes a filter that reads the class's name only: a class a module names
 *       is a candidate; so is, for a module that matches subtypes, a class that {@link
 *       IgnoredTypes} does not rule out in a loader that has the supertype;
 *   <li>the first class of a module's library ({@link InstrumentationModule#libraryPackages()})
 *       starts the agent ({@link Startup}) on a thread of its own, which then builds Byte Buddy's
 *       weaver ({@link ModuleWeaver}) unless a candidate needed it first; a candidate woven before
 *       any other library class came starts the agent itself; until then neither is loaded;
 *   <li>each candidate is then checked against its module's class-loader matcher (class presence)
 *       before any type matcher, and transformed; its woven bytes go to the JVM once the agent's
 *       start is done, so a candidate that comes during the start is woven meanwhile, on its own
 *       thread, and no woven code runs before the hooks are active.
 * </ol>
 *
 * Two transformers share the filter: one adds members to classes as they load, which the JVM keeps
 * in the bytes it retransforms from; the other weaves advice, also into classes loaded before the
 * agent (retransformed at installation).
 */
public final class ModuleInstaller {
  /** Starts the agent on the first candidate class, before it is transformed. */
  public interface Startup {
    InstrumentationListener start() throws Exception;
  }

  private ModuleInstaller() {}

  /**
   * Returns the transformers registered.
   *
   * @param watched internal class names whose loading the agent wants to see (and the loader that
   *     loads them), whether or not a module names them
   * @param health told of every class a module names that is left unwoven
   * @param failWeaving a class whose weaving fails on purpose ({@code hotkey.debug.fail-weaving}),
   *     or null
   * @param weaveCache woven bytes kept from earlier runs ({@code hotkey.weave-cache.dir}), or null
   */
  public static List<ClassFileTransformer> install(
      Instrumentation instrumentation,
      List<InstrumentationModule> modules,
      Map<String, Consumer<ClassLoader>> watched,
      Startup startup,
      ModuleHealth health,
      String failWeaving,
      WovenClassCache weaveCache) {
    Candidates candidates = new Candidates(modules);
    LazyWeaver weaver = new LazyWeaver(modules, startup, health, failWeaving, weaveCache);
    Gate members = new Gate(candidates, weaver, watched, true, health);
    Gate advice = new Gate(candidates, weaver, Map.of(), false, health);
    instrumentation.addTransformer(members, false);
    instrumentation.addTransformer(advice, true);
    retransformLoaded(instrumentation, candidates, weaver, watched);
    return List.of(members, advice);
  }

  /** The classes loaded before the agent (all of them when it attaches to a running JVM). */
  private static void retransformLoaded(
      Instrumentation instrumentation,
      Candidates candidates,
      LazyWeaver weaver,
      Map<String, Consumer<ClassLoader>> watched) {
    List<Class<?>> loaded = new ArrayList<>();
    for (Class<?> type : instrumentation.getAllLoadedClasses()) {
      String name = type.getName();
      if (type.isArray() || type.isPrimitive() || name.indexOf('/') >= 0) {
        continue; // arrays, primitives and hidden classes are never transformed
      }
      String internalName = name.replace('.', '/');
      Consumer<ClassLoader> watcher = watched.get(internalName);
      if (watcher != null) {
        watcher.accept(type.getClassLoader());
      }
      if (candidates.test(type.getClassLoader(), internalName)
          && instrumentation.isModifiableClass(type)) {
        loaded.add(type);
      }
    }
    if (loaded.isEmpty()) {
      return;
    }
    List<Class<?>> advised = new ArrayList<>();
    ModuleWeaver active;
    // as in a transformation, what this thread loads meanwhile is left as it is
    Gate.BUSY.set(Boolean.TRUE);
    try {
      active = weaver.get();
      if (active == null) {
        return;
      }
      for (Class<?> type : loaded) {
        try {
          if (active.advises(type)) {
            advised.add(type);
          }
        } catch (Throwable t) {
          active.failed(type.getName(), type.getClassLoader(), t);
        }
      }
    } finally {
      Gate.BUSY.remove();
    }
    for (Class<?> type : advised) {
      try {
        instrumentation.retransformClasses(type);
      } catch (Throwable t) {
        active.failed(type.getName(), type.getClassLoader(), t);
      }
    }
  }

  /** The class-load filter: by name, without Byte Buddy. */
  static final class Candidates {
    private final Set<String> names = new HashSet<>();
    private final List<String> supertypes = new ArrayList<>();
    private final List<String> libraryPackages = new ArrayList<>();
    private volatile List<ElementMatcher<ClassLoader>> supertypeLoaders;

    Candidates(List<InstrumentationModule> modules) {
      for (InstrumentationModule module : modules) {
        for (String library : module.libraryPackages()) {
          if (!libraryPackages.contains(library)) {
            libraryPackages.add(library);
          }
        }
        for (TypeInstrumentation type : module.typeInstrumentations()) {
          if (type.matchesSubtypes()) {
            supertypes.add(type.typeName());
          } else {
            names.add(type.typeName().replace('.', '/'));
          }
        }
      }
    }

    /** Whether a module names this class (rather than matching it as a subtype). */
    boolean isNamed(String internalName) {
      return names.contains(internalName);
    }

    boolean test(ClassLoader loader, String internalName) {
      if (names.contains(internalName)) {
        return true;
      }
      if (supertypes.isEmpty() || IgnoredTypes.ignores(internalName)) {
        return false;
      }
      for (ElementMatcher<ClassLoader> hasSupertype : supertypeLoaders()) {
        if (hasSupertype.matches(loader)) {
          return true;
        }
      }
      return false;
    }

    boolean isLibraryClass(String internalName) {
      for (String library : libraryPackages) {
        if (internalName.startsWith(library)) {
          return true;
        }
      }
      return false;
    }

    /** Built on first use: only a JVM that loads a class no module names needs them. */
    private List<ElementMatcher<ClassLoader>> supertypeLoaders() {
      List<ElementMatcher<ClassLoader>> matchers = supertypeLoaders;
      if (matchers == null) {
        matchers = new ArrayList<>();
        for (String supertype : supertypes) {
          matchers.add(ClassLoaderMatchers.hasClass(supertype));
        }
        supertypeLoaders = matchers;
      }
      return matchers;
    }
  }

  /**
   * Starts the agent once and builds the weaver once. The first library class starts the agent on a
   * thread of its own, which then builds the weaver unless a candidate needed it first; a candidate
   * that comes meanwhile is woven on its own thread while the start goes on, and its woven bytes go
   * to the JVM only once the start is done ({@link #awaitStart}), so no woven code runs before the
   * hooks are active. A candidate woven before any library class came (an attach, or a library
   * class that is itself a candidate) starts the agent on its own thread, as it would have to wait
   * for it anyway: then nothing waits on another thread that might need a lock it holds. One that
   * both transformers leave as it is (a class a module names, in a loader its module does not apply
   * to) starts it ahead, as any library class does; neither, with an agent class loader that is not
   * parallel capable. Once the start failed nothing is woven.
   */
  static final class LazyWeaver {
    private final List<InstrumentationModule> modules;
    private final Startup startup;
    private final ModuleHealth health;
    private final String failWeaving;
    private final WovenClassCache weaveCache;
    private final AtomicBoolean startBegun = new AtomicBoolean();

    /**
     * Open once the start is done or failed. A latch, not a {@code CompletableFuture}: that class's
     * first use sets up the JDK's common pool, which in {@code premain} would fix its settings
     * before the application's {@code main} could choose them.
     */
    private final CountDownLatch started = new CountDownLatch(1);

    /**
     * Whether another thread may load the agent's classes while the application's thread defines a
     * class: with a loader that is not parallel capable, a woven class's thread would hold the lock
     * the start on {@code hotkey-start} needs while it waits for that start. Then every start is
     * made by the first woven class's thread.
     */
    private static final boolean AGENT_LOADER_PARALLEL =
        ModuleInstaller.class.getClassLoader() == null
            || ModuleInstaller.class.getClassLoader().isRegisteredAsParallelCapable();

    private final DeferredListener listener = new DeferredListener();
    private volatile boolean startFailed;
    private volatile ModuleWeaver weaver;
    private volatile boolean weaverFailed;

    LazyWeaver(
        List<InstrumentationModule> modules,
        Startup startup,
        ModuleHealth health,
        String failWeaving,
        WovenClassCache weaveCache) {
      this.modules = modules;
      this.startup = startup;
      this.health = health;
      this.failWeaving = failWeaving;
      this.weaveCache = weaveCache;
    }

    /**
     * Starts the agent on a daemon thread, once, which then builds the weaver unless a candidate
     * did meanwhile; what that thread loads is left as it is, as on a thread that transforms.
     */
    void startAhead() {
      if (!AGENT_LOADER_PARALLEL || !startBegun.compareAndSet(false, true)) {
        return;
      }
      try {
        Thread start =
            new Thread(
                () -> {
                  Gate.BUSY.set(Boolean.TRUE);
                  runStart();
                  ModuleWeaver unused = get();
                },
                "hotkey-start");
        start.setDaemon(true);
        start.start();
      } catch (Throwable t) {
        runStart(); // no thread to overlap on: the caller starts it
      }
    }

    private void runStart() {
      try {
        listener.deliverTo(startup.start());
      } catch (Throwable t) {
        startFailed = true;
        AgentLog.info("could not start, agent inactive: " + t);
      } finally {
        started.countDown();
      }
    }

    /** True once the start was made, failed, or handed to its own thread. */
    boolean hasBegun() {
      return startBegun.get();
    }

    /**
     * The weaver, built on this thread if no other did; null when the start or the weaver failed.
     * Starts the agent on this thread when nothing did yet; otherwise the start may still be under
     * way.
     */
    ModuleWeaver get() {
      if (startBegun.compareAndSet(false, true)) {
        runStart();
      }
      return weaver();
    }

    /**
     * The weaver, built on this thread if no other did; null when it could not be built or the
     * start failed (the start may still be under way).
     */
    ModuleWeaver weaver() {
      if (startFailed) {
        return null;
      }
      ModuleWeaver active = weaver;
      if (active != null || weaverFailed) {
        return active;
      }
      synchronized (this) {
        if (weaver == null && !weaverFailed) {
          try {
            weaver = new ModuleWeaver(modules, listener, health, failWeaving, weaveCache);
          } catch (Throwable t) {
            weaverFailed = true;
            AgentLog.info("could not build the weaver, nothing is instrumented: " + t);
          }
        }
        return weaver;
      }
    }

    /**
     * Waits for the agent's start, made on this thread when nothing began it (a woven class would
     * have to wait for it anyway); false when it failed.
     */
    boolean awaitStart() {
      if (startBegun.compareAndSet(false, true)) {
        runStart();
      }
      boolean interrupted = false;
      while (true) {
        try {
          started.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true; // a class load cannot be given up: waited for, and the flag kept
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      return !startFailed;
    }
  }

  /**
   * What the weaver reports before the agent's own listener exists (the start is under way), held
   * and then handed on; afterwards everything goes straight to that listener.
   */
  static final class DeferredListener implements InstrumentationListener {
    private final List<Event> held = new ArrayList<>();
    private volatile InstrumentationListener target;

    @Override
    public void transformed(String typeName, boolean retransformed) {
      InstrumentationListener current = targetOrHold(new Event(typeName, retransformed, null));
      if (current != null) {
        current.transformed(typeName, retransformed);
      }
    }

    @Override
    public void failed(String typeName, Throwable error) {
      InstrumentationListener current = targetOrHold(new Event(typeName, false, error));
      if (current != null) {
        current.failed(typeName, error);
      }
    }

    /** The listener to tell, or null when the event is held for it. */
    private InstrumentationListener targetOrHold(Event event) {
      InstrumentationListener current = target;
      if (current != null) {
        return current;
      }
      synchronized (this) {
        if (target == null) {
          held.add(event);
        }
        return target;
      }
    }

    void deliverTo(InstrumentationListener started) {
      List<Event> events;
      synchronized (this) {
        events = new ArrayList<>(held);
        held.clear();
        target = started;
      }
      for (Event event : events) {
        if (event.error == null) {
          started.transformed(event.typeName, event.retransformed);
        } else {
          started.failed(event.typeName, event.error);
        }
      }
    }

    private static final class Event {
      final String typeName;
      final boolean retransformed;
      final Throwable error;

      Event(String typeName, boolean retransformed, Throwable error) {
        this.typeName = typeName;
        this.retransformed = retransformed;
        this.error = error;
      }
    }
  }

  /**
   * One of the two transformers the JVM calls for every class. A class loaded while this thread
   * starts the agent or transforms another class is left as it is (the agent's own and the JDK's
   * classes, a library class a helper is defined next to): transforming it there could need the
   * very class being defined.
   */
  static final class Gate implements ClassFileTransformer {
    private static final ThreadLocal<Boolean> BUSY = new ThreadLocal<>();

    private final Candidates candidates;
    private final LazyWeaver weaver;
    private final Map<String, Consumer<ClassLoader>> watched;
    private final boolean members;
    private final ModuleHealth health;

    Gate(
        Candidates candidates,
        LazyWeaver weaver,
        Map<String, Consumer<ClassLoader>> watched,
        boolean members,
        ModuleHealth health) {
      this.candidates = candidates;
      this.weaver = weaver;
      this.watched = watched;
      this.members = members;
      this.health = health;
    }

    @Override
    public byte[] transform(
        ClassLoader loader,
        String className,
        Class<?> classBeingRedefined,
        ProtectionDomain protectionDomain,
        byte[] classfileBuffer) {
      if (className == null) {
        return null;
      }
      if (BUSY.get() != null) {
        if (classBeingRedefined == null && candidates.isNamed(className)) {
          // it loads unwoven for good: its module must not serve where it is
          health.unwoven(
              className.replace('/', '.'),
              loader,
              "it loaded while the agent was starting or weaving another class");
        }
        return null;
      }
      BUSY.set(Boolean.TRUE);
      try {
        Consumer<ClassLoader> watcher = watched.get(className);
        if (watcher != null) {
          watcher.accept(loader);
        }
        if (!candidates.test(loader, className)) {
          if (!weaver.hasBegun() && candidates.isLibraryClass(className)) {
            weaver.startAhead();
          }
          return null;
        }
        ModuleWeaver active = weaver.weaver();
        byte[] woven =
            active == null
                ? null
                : active.transform(
                    loader, className, classBeingRedefined, classfileBuffer, members);
        if (woven == null) {
          // left as it is by both transformers (the advice one comes last: Jedis 3's Jedis in
          // Jedis 4+), it waits for nothing: the start goes on beside the application
          if (!members && !weaver.hasBegun() && candidates.isLibraryClass(className)) {
            weaver.startAhead();
          }
          return null;
        }
        // the class is defined once this returns: not before the hooks its advice calls are active
        return weaver.awaitStart() ? woven : null;
      } catch (Throwable t) {
        // never fail a class load: the class then loads as it is
        return null;
      } finally {
        BUSY.remove();
      }
    }
  }
}
