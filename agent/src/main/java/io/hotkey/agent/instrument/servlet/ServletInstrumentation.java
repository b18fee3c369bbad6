package io.hotkey.agent.instrument.servlet;

import static io.hotkey.agent.instrument.ClassLoaderMatchers.hasClass;
import static net.bytebuddy.matcher.ElementMatchers.declaresMethod;
import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.instrument.ClientInstrumentation;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Idempotency-Key for servlet containers, {@code jakarta.servlet} (Tomcat 10+, Jetty 12 ee10+,
 * Spring Boot 3) and {@code javax.servlet} (Tomcat 9, Spring Boot 2): {@link ServletAdvice} on
 * every concrete {@code Servlet.service(ServletRequest, ServletResponse)} and {@code
 * FilterChain.doFilter(ServletRequest, ServletResponse)}; the outermost call on a thread does the
 * work (see {@link ServletBridge}).
 */
public final class ServletInstrumentation implements ClientInstrumentation {
  /** Activates the bridge with the engine (the agent builds this only when an engine exists). */
  public ServletInstrumentation(IdempotencyEngine engine, AgentErrors errors) {
    ServletBridge.activate(engine, errors);
  }

  @Override
  public String name() {
    return "servlet";
  }

  @Override
  public AgentBuilder extend(AgentBuilder builder, AgentBuilder.Transformer.ForAdvice advice) {
    for (String api : new String[] {"jakarta", "javax"}) {
      builder = hook(builder, advice, api, api + ".servlet.Servlet", "service");
      builder = hook(builder, advice, api, api + ".servlet.FilterChain", "doFilter");
    }
    return builder;
  }

  private static AgentBuilder hook(
      AgentBuilder builder,
      AgentBuilder.Transformer.ForAdvice advice,
      String api,
      String type,
      String method) {
    ElementMatcher.Junction<MethodDescription> target =
        named(method)
            .and(takesArguments(2))
            .and(takesArgument(0, named(api + ".servlet.ServletRequest")))
            .and(takesArgument(1, named(api + ".servlet.ServletResponse")))
            .and(not(isAbstract()));
    return builder
        .type(
            declaresMethod(target).and(not(isInterface())).and(hasSuperType(named(type))),
            hasClass(type))
        .transform(advice.advice(target, ServletAdvice.class.getName()));
  }
}
