package io.hotkey.agent.instrument.webflux;

import static io.hotkey.agent.instrument.ClassLoaderMatchers.hasClass;

import io.hotkey.agent.instrument.InstrumentationModule;
import io.hotkey.agent.instrument.TypeInstrumentation;
import java.util.List;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Idempotency-Key for Spring WebFlux 5.3 and 6.x on any reactive server (Reactor Netty, and so
 * Spring Cloud Gateway): {@link WebFluxAdvice} on {@code HttpWebHandlerAdapter.handle}, the {@code
 * HttpHandler} through which every request of a WebFlux application reaches its filters and
 * handlers, reads the body before any filter; {@link WebFluxDispatchAdvice} on {@code
 * DispatcherHandler.handle}, after the filters, decides with the exchange's principal (see {@link
 * WebFluxBridge}). The agent installs it only when routes are configured, and activates the bridge
 * with the engine.
 */
public final class WebFluxInstrumentationModule implements InstrumentationModule {
  @Override
  public String name() {
    return "spring-webflux";
  }

  @Override
  public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
    return hasClass(HttpWebHandlerAdapterInstrumentation.ADAPTER);
  }

  @Override
  public List<String> libraryPackages() {
    return List.of("org/springframework/web/server/", "org/springframework/web/reactive/");
  }

  @Override
  public List<TypeInstrumentation> typeInstrumentations() {
    return List.of(
        new HttpWebHandlerAdapterInstrumentation(), new DispatcherHandlerInstrumentation());
  }
}
