package io.hotkey.agent.instrument.jdkhttp;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;

/**
 * {@code sun.net.httpserver.ServerImpl}, to which both {@code HttpServerImpl} and {@code
 * HttpsServerImpl} delegate {@code createContext}: its two {@code createContext} methods get {@link
 * CreateContextAdvice}. The agent's ignored types let {@code sun.net.httpserver.} through (they
 * rule out the rest of {@code sun.}).
 */
final class JdkHttpServerInstrumentation implements TypeInstrumentation {
  static final String SERVER_IMPL = "sun.net.httpserver.ServerImpl";

  @Override
  public String typeName() {
    return SERVER_IMPL;
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(
        named("createContext").and(takesArgument(0, String.class)),
        CreateContextAdvice.class.getName());
  }
}
