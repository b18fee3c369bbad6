package io.hotkey.agent.instrument;

import java.util.List;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * One instrumented library and version line (a Redis client, a servlet API, the JDK's HTTP server):
 * the class presence that gates it and the types it transforms. Named by the oldest version it
 * supports, as OpenTelemetry's agent names its modules.
 */
public interface InstrumentationModule {
  /** Short name for the start-up log, e.g. {@code jedis-4+}. */
  String name();

  /**
   * The loaders this module applies to, told by a class only its version line has ({@link
   * ClassLoaderMatchers#hasClass}); asked before any of its types is looked at.
   */
  ElementMatcher.Junction<ClassLoader> classLoaderMatcher();

  List<TypeInstrumentation> typeInstrumentations();

  /**
   * The library's packages, in internal form (e.g. {@code io/lettuce/core/}): the first of their
   * classes to load starts the agent on a thread of its own, so that the start overlaps the
   * application's own until a class needs transforming (which waits for it).
   */
  List<String> libraryPackages();

  /**
   * Classes compiled against the library that its advice calls: defined next to it in each loader
   * the module applies to, before the first transformed class of that loader can run.
   */
  default List<HelperClasses> helperClasses() {
    return List.of();
  }
}
