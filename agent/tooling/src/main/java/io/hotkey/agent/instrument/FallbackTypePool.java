package io.hotkey.agent.instrument;

import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;

/**
 * Type pools that describe a type from its class file and, when its class file cannot be read, from
 * the class the loader already holds. Other agents define classes that have no {@code .class}
 * resource: OpenTelemetry's generated field accessors, which it adds as interfaces to the very
 * Lettuce classes this agent weaves. Without the fallback those classes could not be woven, as
 * OpenTelemetry's own agent found for the same reason.
 */
final class FallbackTypePool {
  private FallbackTypePool() {}

  /** A lazily resolving pool over {@code classFiles}, falling back to {@code loader}'s classes. */
  static TypePool of(ClassFileLocator classFiles, ClassLoader loader) {
    return new TypePool.Default.WithLazyResolution(
        new LoadedClassFallback(loader), classFiles, TypePool.Default.ReaderMode.FAST);
  }

  /**
   * The pool's cache, where every resolution passes before it is used: a type the class files could
   * not describe is replaced there by its loaded class, so that the pool's own lookups (a super
   * type of a type being woven) see it too.
   */
  private static final class LoadedClassFallback extends TypePool.CacheProvider.Simple {
    private final ClassLoader loader;

    LoadedClassFallback(ClassLoader loader) {
      this.loader = loader;
    }

    @Override
    public TypePool.Resolution register(String name, TypePool.Resolution resolution) {
      if (!resolution.isResolved()) {
        Class<?> defined = definedClass(name);
        if (defined != null) {
          resolution = new TypePool.Resolution.Simple(TypeDescription.ForLoadedType.of(defined));
        }
      }
      return super.register(name, resolution);
    }

    private Class<?> definedClass(String name) {
      try {
        // a type without a class file was defined directly, so this finds it without loading more
        return Class.forName(name, false, loader);
      } catch (ClassNotFoundException | LinkageError notThere) {
        return null;
      }
    }
  }
}
