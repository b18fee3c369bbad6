package io.hotkey.agent.instrument;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;
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
   * a map of the agent's own, not Caffeine: this runs at the first class of a client, before the
   * agent's start has made Caffeine ready, and only while classes load.
   */
  public static ElementMatcher.Junction<ClassLoader> hasClass(String className) {
    String resource = className.replace('.', '/') + ".class";
    LoaderAnswers answers = new LoaderAnswers();
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
    LoaderAnswers answers = new LoaderAnswers();
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

  /**
   * Answers per loader, told apart by identity (as the JVM does), which do not keep a loader from
   * being collected.
   */
  private static final class LoaderAnswers {
    private final Map<LoaderKey, Boolean> answers = new HashMap<>();
    private final ReferenceQueue<ClassLoader> collected = new ReferenceQueue<>();

    synchronized Boolean get(ClassLoader loader) {
      expunge();
      return answers.get(new LoaderKey(loader, null));
    }

    synchronized void put(ClassLoader loader, boolean answer) {
      expunge();
      answers.put(new LoaderKey(loader, collected), answer);
    }

    private void expunge() {
      for (Reference<? extends ClassLoader> gone = collected.poll();
          gone != null;
          gone = collected.poll()) {
        answers.remove(gone);
      }
    }
  }

  /** A loader, weakly held, equal to another only if it is the same loader. */
  private static final class LoaderKey extends WeakReference<ClassLoader> {
    private final int hash;

    LoaderKey(ClassLoader loader, ReferenceQueue<ClassLoader> queue) {
      super(loader, queue);
      hash = System.identityHashCode(loader);
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object other) {
      if (other == this) {
        return true;
      }
      ClassLoader loader = get();
      return other instanceof LoaderKey && loader != null && loader == ((LoaderKey) other).get();
    }
  }

  /**
   * The kept answer, else one asked outside the lock (a loader's lookup may take locks of its own;
   * two threads asking at once both ask, and agree).
   */
  private static boolean answer(
      LoaderAnswers answers, ClassLoader loader, Predicate<ClassLoader> question) {
    Boolean known = answers.get(loader);
    if (known == null) {
      known = question.test(loader);
      answers.put(loader, known);
    }
    return known;
  }
}
