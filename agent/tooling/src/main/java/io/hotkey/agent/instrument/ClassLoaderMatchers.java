package io.hotkey.agent.instrument;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Predicate;
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
   * Boot's nested-jar loader searches each of its jars), so the answer is kept per loader. Kept in
   * a plain map, not Caffeine: this runs at the first class of a client, before the agent's start
   * has made Caffeine ready, and only while classes load.
   */
  public static ElementMatcher.Junction<ClassLoader> hasClass(String className) {
    String resource = className.replace('.', '/') + ".class";
    Map<ClassLoader, Boolean> answers = answersByLoader();
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
        return answer(answers, loader, l -> l.getResource(resource) != null);
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
    Map<ClassLoader, Boolean> answers = answersByLoader();
    return new ElementMatcher.Junction.AbstractBase<ClassLoader>() {
      @Override
      public boolean matches(ClassLoader loader) {
        return loader != null
            && answer(
                answers,
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

  /** Answers per loader, which do not keep a loader from being collected. */
  private static Map<ClassLoader, Boolean> answersByLoader() {
    return Collections.synchronizedMap(new WeakHashMap<>());
  }

  /**
   * The kept answer, else one asked outside the map's lock (a loader's lookup may take locks of its
   * own; two threads asking at once both ask, and agree).
   */
  private static boolean answer(
      Map<ClassLoader, Boolean> answers, ClassLoader loader, Predicate<ClassLoader> question) {
    Boolean known = answers.get(loader);
    if (known == null) {
      known = question.test(loader);
      answers.put(loader, known);
    }
    return known;
  }
}
