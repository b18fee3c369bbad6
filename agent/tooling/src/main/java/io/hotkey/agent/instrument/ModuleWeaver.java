package io.hotkey.agent.instrument;

import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.not;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.TypeResolutionStrategy;
import net.bytebuddy.dynamic.scaffold.MethodGraph;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;

/**
 * Byte Buddy's part of {@link ModuleInstaller}: for a candidate class, the modules' class-loader
 * matchers, then their type matchers, then the transformation. Advice keeps the class's shape
 * (decorated: a loaded class can be retransformed with it); a type that gains members is redefined
 * as it loads. Byte Buddy's {@code AgentBuilder} is not used: installing it generates a class of
 * its own and loads much of Byte Buddy that this needs none of.
 */
final class ModuleWeaver {
  private final List<Hook> hooks = new ArrayList<>();
  private final Map<String, Hook> hooksById = new HashMap<>();
  private final ClassFileLocator agentClasses =
      ClassFileLocator.ForClassLoader.of(ModuleWeaver.class.getClassLoader());
  private final InstrumentationListener listener;
  private final ModuleHealth health;

  /** The class whose weaving fails on purpose ({@code hotkey.debug.fail-weaving}), or null. */
  private final String failWeaving;

  /** Woven bytes kept from earlier runs, or null. */
  private final WovenClassCache cache;

  ModuleWeaver(
      List<InstrumentationModule> modules,
      InstrumentationListener listener,
      ModuleHealth health,
      String failWeaving,
      WovenClassCache cache) {
    this.listener = listener;
    this.health = health;
    this.failWeaving = failWeaving;
    this.cache = cache;
    for (InstrumentationModule module : modules) {
      ModuleClasses classes = new ModuleClasses(module, agentClasses);
      List<TypeInstrumentation> types = module.typeInstrumentations();
      for (int i = 0; i < types.size(); i++) {
        Hook hook = new Hook(module.name() + "#" + i, module, types.get(i), classes);
        hooks.add(hook);
        hooksById.put(hook.id, hook);
      }
    }
  }

  /** A class a module names could not be woven: reported, and its module stops serving there. */
  void failed(String name, ClassLoader loader, Throwable error) {
    listener.failed(name, error);
    health.unwoven(name, loader, error.toString());
  }

  /**
   * Whether a loaded class gets advice (to pick the classes to retransform). It is described from
   * its class file, as a class being loaded is: reflection on it could fail on a type its methods
   * name that its loader cannot find.
   */
  boolean advises(Class<?> type) {
    String name = type.getName();
    ClassLoader loader = type.getClassLoader();
    TypeDescription description = null;
    for (Hook hook : hooks) {
      if (hook.mayMatch(name) && hook.loaders.matches(loader) && !hook.addsMembers()) {
        if (description == null) {
          TypePool.Resolution resolution =
              FallbackTypePool.of(loaderClasses(loader), loader).describe(name);
          if (!resolution.isResolved()) {
            if (hook.named()) {
              throw new IllegalStateException("its class file cannot be read");
            }
            return false;
          }
          description = resolution.resolve();
        }
        if (hook.types.matches(description)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Returns the new class file, or null to leave the class as it is.
   *
   * @param members whether this is the class's first load, for the types that gain members;
   *     otherwise the advice of the others (at load or retransformation)
   */
  byte[] transform(
      ClassLoader loader,
      String internalName,
      Class<?> classBeingRedefined,
      byte[] classFile,
      boolean members) {
    String name = internalName.replace('/', '.');
    try {
      // whether a named hook adds members is asked later: a class found in the cache needs no
      // named hook's transformer, whose matchers load much of Byte Buddy; a subtype hook is asked
      // at once, as it may match any class
      List<Hook> applicable = new ArrayList<>(1);
      for (Hook hook : hooks) {
        if (hook.mayMatch(name)
            && (hook.named() || hook.addsMembers() == members)
            && hook.loaders.matches(loader)) {
          applicable.add(hook);
        }
      }
      if (applicable.isEmpty()) {
        return null;
      }
      // a subtype match depends on other class files than this one: never taken from the cache
      String key =
          cache != null && !name.equals(failWeaving) && applicable.stream().allMatch(Hook::named)
              ? cache.key(name, members, ids(applicable), classFile)
              : null;
      if (key == null) {
        applicable.removeIf(hook -> hook.addsMembers() != members);
        if (applicable.isEmpty()) {
          return null;
        }
      }
      WovenClassCache.Weave weave = key == null ? null : cache.find(key);
      if (weave == null || !hooksById.keySet().containsAll(weave.hooks)) {
        weave = weave(loader, name, classFile, members, applicable);
        if (key != null) {
          cache.store(key, weave);
        }
      }
      Set<HelperClasses> helpers = new LinkedHashSet<>();
      for (String id : weave.hooks) {
        helpers.addAll(hooksById.get(id).classes.helpers());
      }
      for (HelperClasses helper : helpers) {
        helper.injectInto(loader);
      }
      if (weave.classFile != null) {
        listener.transformed(name, classBeingRedefined != null);
      }
      return weave.classFile;
    } catch (Throwable t) {
      listener.failed(name, t);
      if (namesClass(name, loader)) {
        health.unwoven(name, loader, t.toString());
      }
      return null;
    }
  }

  /** Byte Buddy's part: the hooks whose type matchers match, applied. */
  private WovenClassCache.Weave weave(
      ClassLoader loader, String name, byte[] classFile, boolean members, List<Hook> applicable) {
    ClassFileLocator locator =
        new ClassFileLocator.Compound(
            ClassFileLocator.Simple.of(name, classFile), loaderClasses(loader));
    TypePool pool = FallbackTypePool.of(locator, loader);
    TypeDescription type = pool.describe(name).resolve();
    List<Hook> matched = new ArrayList<>(1);
    for (Hook hook : applicable) {
      if (hook.addsMembers() == members && hook.types.matches(type)) {
        matched.add(hook);
      }
    }
    if (matched.isEmpty()) {
      return new WovenClassCache.Weave(List.of(), null);
    }
    if (name.equals(failWeaving)) {
      throw new IllegalStateException("hotkey.debug.fail-weaving names this class");
    }
    DynamicType.Builder<?> builder =
        members
            ? Weaving.REDEFINING.redefine(type, locator)
            : Weaving.DECORATING.decorate(type, locator);
    for (Hook hook : matched) {
      builder = hook.apply(builder, loader);
    }
    return new WovenClassCache.Weave(
        ids(matched), builder.make(TypeResolutionStrategy.Disabled.INSTANCE, pool).getBytes());
  }

  private static List<String> ids(List<Hook> hooks) {
    List<String> ids = new ArrayList<>(hooks.size());
    for (Hook hook : hooks) {
      ids.add(hook.id);
    }
    return ids;
  }

  /**
   * Whether a module names this very class (rather than matching it as a subtype) in its loader.
   */
  private boolean namesClass(String name, ClassLoader loader) {
    for (Hook hook : hooks) {
      if (hook.named() && hook.typeName.equals(name) && hook.loaders.matches(loader)) {
        return true;
      }
    }
    return false;
  }

  private static ClassFileLocator loaderClasses(ClassLoader loader) {
    return loader == null
        ? ClassFileLocator.ForClassLoader.ofBootLoader()
        : ClassFileLocator.ForClassLoader.of(loader);
  }

  /**
   * Byte Buddy's own configuration, made at the first class woven rather than with the weaver: a
   * start whose classes all come from the cache never makes it.
   */
  private static final class Weaving {
    /**
     * For decorating a type: advice visits only the methods the class file declares, so the method
     * graph of its whole hierarchy (every super type's class file read and resolved, Netty's
     * handlers for Lettuce) is not needed.
     */
    static final ByteBuddy DECORATING =
        new ByteBuddy()
            .with(MethodGraph.Compiler.ForDeclaredMethods.INSTANCE)
            .with(Implementation.Context.Disabled.Factory.INSTANCE);

    static final ByteBuddy REDEFINING = new ByteBuddy();
  }

  /** One type instrumentation of one module, with the module's gate. */
  private static final class Hook {
    /** The module's name and the instrumentation's place in it: the same in every run. */
    final String id;

    final String typeName;
    final boolean subtypes;
    final ElementMatcher<ClassLoader> loaders;
    final ElementMatcher<TypeDescription> types;
    final ModuleClasses classes;
    private final TypeInstrumentation type;

    /** Made at the hook's first candidate: its method matchers load much of Byte Buddy. */
    private volatile TypeTransformer transformer;

    Hook(String id, InstrumentationModule module, TypeInstrumentation type, ModuleClasses classes) {
      this.id = id;
      this.type = type;
      this.typeName = type.typeName();
      this.subtypes = type.matchesSubtypes();
      ElementMatcher.Junction<ClassLoader> loaders =
          module.classLoaderMatcher().and(type.classLoaderMatcher());
      this.loaders = subtypes ? loaders.and(ClassLoaderMatchers.hasClass(typeName)) : loaders;
      this.types = subtypes ? not(isSynthetic()).and(type.typeMatcher()) : type.typeMatcher();
      this.classes = classes;
    }

    private TypeTransformer transformer() {
      TypeTransformer made = transformer;
      if (made == null) {
        synchronized (this) {
          made = transformer;
          if (made == null) {
            made = new TypeTransformer();
            type.transform(made);
            transformer = made;
          }
        }
      }
      return made;
    }

    /** Whether the type gains members, and so is transformed only as it loads. */
    boolean addsMembers() {
      return !transformer().members().isEmpty();
    }

    boolean named() {
      return !subtypes;
    }

    /** Decided by name alone: the named class, or any class for a subtype match. */
    boolean mayMatch(String name) {
      return subtypes || typeName.equals(name);
    }

    DynamicType.Builder<?> apply(DynamicType.Builder<?> builder, ClassLoader loader) {
      for (TypeTransformer.MemberDefinition definition : transformer().members()) {
        builder = definition.define(builder);
      }
      List<TypeTransformer.MethodAdvice> advice = transformer().advice();
      if (advice.isEmpty()) {
        return builder;
      }
      // the advice's types resolve against the agent and against the library it is woven into
      ClassFileLocator locator =
          new ClassFileLocator.Compound(classes.adviceClasses(), loaderClasses(loader));
      TypePool pool = FallbackTypePool.of(locator, loader);
      for (TypeTransformer.MethodAdvice method : advice) {
        builder =
            builder.visit(
                Advice.to(pool.describe(method.adviceClass).resolve(), locator).on(method.methods));
      }
      return builder;
    }
  }

  /**
   * A module's helper classes and the class files its advice is read from, made at the module's
   * first weave: reading and renaming helpers is a good part of a start, and a JVM needs only those
   * of the libraries it loads (a Jedis application never Lettuce's).
   */
  private static final class ModuleClasses {
    private final InstrumentationModule module;
    private final ClassFileLocator agentClasses;
    private List<HelperClasses> helpers;
    private ClassFileLocator adviceClasses;

    ModuleClasses(InstrumentationModule module, ClassFileLocator agentClasses) {
      this.module = module;
      this.agentClasses = agentClasses;
    }

    synchronized List<HelperClasses> helpers() {
      prepare();
      return helpers;
    }

    synchronized ClassFileLocator adviceClasses() {
      prepare();
      return adviceClasses;
    }

    private void prepare() {
      if (helpers == null) {
        List<HelperClasses> moduleHelpers = module.helperClasses();
        adviceClasses =
            moduleHelpers.isEmpty()
                ? agentClasses
                : HelperClasses.renamingLocator(agentClasses, moduleHelpers);
        helpers = moduleHelpers;
      }
    }
  }
}
