package io.hotkey.agent.instrument;

import net.bytebuddy.matcher.ElementMatcher;

/** Version gating: an instrumentation applies to a class loader only if a marker class of its version line is there. */
public final class ClassLoaderMatchers {
  private ClassLoaderMatchers() {}

  public static ElementMatcher.Junction<ClassLoader> hasClass(String className) {
    String resource = className.replace('.', '/') + ".class";
    return new ElementMatcher.Junction.AbstractBase<ClassLoader>() {
      @Override
      public boolean matches(ClassLoader loader) {
        return loader == null ? ClassLoader.getSystemResource(resource) != null : loader.getResource(resource) != null;
      }

      @Override
      public String toString() {
        return "hasClass(" + className + ")";
      }
    };
  }
}
