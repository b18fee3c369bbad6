package io.hotkey.agent.instrument;

import static net.bytebuddy.matcher.ElementMatchers.any;
import static net.bytebuddy.matcher.ElementMatchers.named;

import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * The changes a module makes to one type. The type is named so that the class-load filter can pick
 * out candidates by name alone, before Byte Buddy is even loaded.
 */
public interface TypeInstrumentation {
  /** The class this transforms or, with {@link #matchesSubtypes()}, the type it extends. */
  String typeName();

  /**
   * True when this transforms subtypes of {@link #typeName()} rather than that class: every class
   * of a loader that has the type is then a candidate that {@link #typeMatcher()} decides on.
   */
  default boolean matchesSubtypes() {
    return false;
  }

  default ElementMatcher<TypeDescription> typeMatcher() {
    return named(typeName());
  }

  /** A further condition on the loader, asked after the module's. */
  default ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
    return any();
  }

  void transform(TypeTransformer transformer);
}
