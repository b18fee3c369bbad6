package io.hotkey.agent.instrument.jdkhttp;

import static net.bytebuddy.matcher.ElementMatchers.any;

import io.hotkey.agent.instrument.InstrumentationModule;
import io.hotkey.agent.instrument.TypeInstrumentation;
import java.util.List;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Idempotency-Key for the JDK's {@code com.sun.net.httpserver} server (HTTP and HTTPS), which every
 * JDK has: no class presence gates it. The agent installs it only when routes are configured, and
 * activates {@link IdempotencyFilters} with the engine.
 */
public final class JdkHttpServerInstrumentationModule implements InstrumentationModule {
  @Override
  public String name() {
    return "jdk-httpserver";
  }

  @Override
  public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
    return any();
  }

  @Override
  public List<String> libraryPackages() {
    return List.of("com/sun/net/httpserver/", "sun/net/httpserver/");
  }

  @Override
  public List<TypeInstrumentation> typeInstrumentations() {
    return List.of(new JdkHttpServerInstrumentation());
  }
}
