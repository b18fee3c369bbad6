package io.hotkey.agent.instrument;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Version gating: an instrumentation applies to a class loader only if a marker class of its
 * version line is there.
 */
public final class ClassLoaderMatchers {
  private ClassLoaderMatchers() {}

  /**
   * Byte Buddy asks the class-loader matcher before the type's name, i.e. for every class the
   * application loads; a resource lookup that misses is expensive in loaders over many jars (Spring
   * Boot's nested-jar loader searches each of its jars), so the answer is kept per loader.
   */
  public static ElementMatcher.Junction<ClassLoader> hasClass(String className) {
    String resource = className.replace('.', '/') + ".class";
    Cache<ClassLoader, Boolean> answers = Caffeine.newBuilder().weakKeys().build();
    Boolean[] bootstrap = new Boolean[1];
    return new ElementMatcher.Junction.AbstractBase<ClassLoader>() {
      @Override
      public boolean matches(ClassLoader loader) {
        if (loader == null) {
          Boolean known = bootstrap[0];
          if (known == null) {
            known = ClassLoader.getSystemResource(resource) != null;
            bootstrap[0] = known;
          }
          return known;
        }
        return answers.get(loader, l -> l.getResource(resource) != null);
      }

      @Override
      public String toString() {
        return "hasClass(" + className + ")";
      }
    };
  }

  /**
   * Loaders that resolve {@code agentClass}'s name to the agent's own class. A class that is made
   * to implement one of the agent's interfaces must be defined only there: elsewhere it could not
   * be loaded at all.
   */
  public static ElementMatcher.Junction<ClassLoader> seesAgentClass(Class<?> agentClass) {
    Cache<ClassLoader, Boolean> answers = Caffeine.newBuilder().weakKeys().build();
    return new ElementMatcher.Junction.AbstractBase<ClassLoader>() {
      @Override
      public boolean matches(ClassLoader loader) {
        return loader != null
            && answers.get(
                loader,
                l -> {
                  try {
                    return Class.forName(agentClass.getName(), false, l) == agentClass;
                  } catch (ClassNotFoundException | LinkageError e) {
                    return false;
                  }
                });
      }

      @Override
      public String toString() {
        return "seesAgentClass(" + agentClass.getName() + ")";
      }
    };
  }
}
