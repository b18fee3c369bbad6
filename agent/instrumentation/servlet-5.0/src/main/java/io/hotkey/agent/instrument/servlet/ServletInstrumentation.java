package io.hotkey.agent.instrument.servlet;

import static net.bytebuddy.matcher.ElementMatchers.declaresMethod;
import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Every class of one servlet API that implements one of its entry points ({@code Servlet.service}
 * or {@code FilterChain.doFilter}, both taking the request and the response).
 */
final class ServletInstrumentation implements TypeInstrumentation {
  private final String api;
  private final String type;
  private final String method;

  /**
   * @param api {@code jakarta} or {@code javax}
   * @param type the interface's simple name in {@code <api>.servlet}
   * @param method its method taking {@code (ServletRequest, ServletResponse)}
   */
  ServletInstrumentation(String api, String type, String method) {
    this.api = api;
    this.type = type;
    this.method = method;
  }

  @Override
  public String typeName() {
    return api + ".servlet." + type;
  }

  @Override
  public boolean matchesSubtypes() {
    return true;
  }

  @Override
  public ElementMatcher<TypeDescription> typeMatcher() {
    return declaresMethod(entryPoint())
        .and(not(isInterface()))
        .and(hasSuperType(named(typeName())));
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(entryPoint(), ServletAdvice.class.getName());
  }

  private ElementMatcher.Junction<MethodDescription> entryPoint() {
    return named(method)
        .and(takesArguments(2))
        .and(takesArgument(0, named(api + ".servlet.ServletRequest")))
        .and(takesArgument(1, named(api + ".servlet.ServletResponse")))
        .and(not(isAbstract()));
  }
}
