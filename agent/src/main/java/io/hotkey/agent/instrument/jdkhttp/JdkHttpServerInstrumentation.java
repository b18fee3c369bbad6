package io.hotkey.agent.instrument.jdkhttp;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;

import io.hotkey.agent.instrument.ClientInstrumentation;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * The JDK's {@code com.sun.net.httpserver} server (HTTP and HTTPS): both {@code HttpServerImpl} and
 * {@code HttpsServerImpl} delegate {@code createContext} to {@code sun.net.httpserver.ServerImpl},
 * whose two {@code createContext} methods get {@link CreateContextAdvice}. The agent's type-ignore
 * matcher must let {@code sun.net.httpserver.} through (it ignores the rest of {@code sun.}).
 */
public final class JdkHttpServerInstrumentation implements ClientInstrumentation {
  public static final String SERVER_IMPL = "sun.net.httpserver.ServerImpl";

  @Override
  public String name() {
    return "jdk-httpserver";
  }

  @Override
  public AgentBuilder extend(AgentBuilder builder, AgentBuilder.Transformer.ForAdvice advice) {
    return builder
        .type(named(SERVER_IMPL))
        .transform(
            advice.advice(
                named("createContext").and(takesArgument(0, String.class)),
                CreateContextAdvice.class.getName()));
  }
}
