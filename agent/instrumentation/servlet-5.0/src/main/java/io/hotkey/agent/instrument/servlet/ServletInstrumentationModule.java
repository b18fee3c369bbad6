package io.hotkey.agent.instrument.servlet;

import static io.hotkey.agent.instrument.ClassLoaderMatchers.hasClass;

import io.hotkey.agent.instrument.InstrumentationModule;
import io.hotkey.agent.instrument.TypeInstrumentation;
import java.util.List;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Idempotency-Key for servlet containers, {@code jakarta.servlet} (Tomcat 10+, Jetty 12 ee10+,
 * Spring Boot 3) and {@code javax.servlet} (Tomcat 9, Spring Boot 2): {@link ServletAdvice} on
 * every concrete {@code Servlet.service(ServletRequest, ServletResponse)} and {@code
 * FilterChain.doFilter(ServletRequest, ServletResponse)}; the outermost call on a thread does the
 * work (see {@link ServletBridge}). The agent installs it only when routes are configured, and
 * activates the bridge with the engine.
 */
public final class ServletInstrumentationModule implements InstrumentationModule {
  @Override
  public String name() {
    return "servlet";
  }

  @Override
  public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
    return hasClass("jakarta.servlet.Servlet").or(hasClass("javax.servlet.Servlet"));
  }

  @Override
  public List<String> libraryPackages() {
    return List.of("jakarta/servlet/", "javax/servlet/");
  }

  @Override
  public List<TypeInstrumentation> typeInstrumentations() {
    return List.of(
        new ServletInstrumentation("jakarta", "Servlet", "service"),
        new ServletInstrumentation("jakarta", "FilterChain", "doFilter"),
        new ServletInstrumentation("javax", "Servlet", "service"),
        new ServletInstrumentation("javax", "FilterChain", "doFilter"));
  }
}
