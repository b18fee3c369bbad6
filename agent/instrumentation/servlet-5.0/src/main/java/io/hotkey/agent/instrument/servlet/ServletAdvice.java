package io.hotkey.agent.instrument.servlet;

import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Inlined into {@code Servlet.service(ServletRequest, ServletResponse)} and {@code
 * FilterChain.doFilter(ServletRequest, ServletResponse)} implementations of both servlet APIs. It
 * types the arguments as {@code Object} (one advice for {@code jakarta} and {@code javax}) and only
 * links against {@link ServletBridge} and {@link ServletCall}, which the system class loader
 * defines: any container or web application loader reaches them. All the servlet-typed work happens
 * in the injected helpers.
 */
public final class ServletAdvice {
  private ServletAdvice() {}

  @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
  static boolean enter(
      @Advice.Argument(value = 0, readOnly = false, typing = Assigner.Typing.DYNAMIC)
          Object request,
      @Advice.Argument(value = 1, readOnly = false, typing = Assigner.Typing.DYNAMIC)
          Object response,
      @Advice.Local("hotkeyServletCall") ServletCall call) {
    call = ServletBridge.enter(request, response);
    if (call.request() != null) {
      request = call.request();
      response = call.response();
    }
    return call.isAnswered();
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  static void exit(
      @Advice.Local("hotkeyServletCall") ServletCall call, @Advice.Thrown Throwable thrown) {
    ServletBridge.exit(call, thrown);
  }
}
