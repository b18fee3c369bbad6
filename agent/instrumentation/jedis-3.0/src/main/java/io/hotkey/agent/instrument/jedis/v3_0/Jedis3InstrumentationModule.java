package io.hotkey.agent.instrument.jedis.v3_0;

import static net.bytebuddy.matcher.ElementMatchers.not;

import io.hotkey.agent.instrument.ClassLoaderMatchers;
import io.hotkey.agent.instrument.ConnectionStateFieldInstrumentation;
import io.hotkey.agent.instrument.HelperClasses;
import io.hotkey.agent.instrument.InstrumentationModule;
import io.hotkey.agent.instrument.TypeInstrumentation;
import java.util.List;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Jedis 3.x, recognised by {@code BinaryJedis} without Jedis 4's {@code CommandObject}: every
 * command is counted where it is sent, every reply where it is read, and the synchronous reads of
 * hot keys made through {@code BinaryJedis} and {@code Jedis} methods are answered locally ({@link
 * Jedis3Calls}).
 */
public final class Jedis3InstrumentationModule implements InstrumentationModule {
  @Override
  public String name() {
    return "jedis-3";
  }

  @Override
  public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
    return ClassLoaderMatchers.hasClass("redis.clients.jedis.BinaryJedis")
        .and(not(ClassLoaderMatchers.hasClass("redis.clients.jedis.CommandObject")));
  }

  @Override
  public List<String> libraryPackages() {
    return List.of("redis/clients/jedis/");
  }

  @Override
  public List<TypeInstrumentation> typeInstrumentations() {
    return List.of(
        new Jedis3ConnectionInstrumentation(),
        new ConnectionStateFieldInstrumentation(Jedis3ConnectionInstrumentation.CONNECTION),
        new Jedis3ApiInstrumentation("redis.clients.jedis.BinaryJedis"),
        new Jedis3ApiInstrumentation("redis.clients.jedis.Jedis"));
  }

  @Override
  public List<HelperClasses> helperClasses() {
    return List.of(Helpers.JEDIS3_CALLS);
  }

  /** Created on first use, as the module is before any Jedis class loads. */
  private static final class Helpers {
    /**
     * {@link Jedis3Call} and {@link Jedis3Calls}, defined next to Jedis 3's {@code ProtocolCommand}
     * in each loader with Jedis 3.
     */
    static final HelperClasses JEDIS3_CALLS =
        new HelperClasses(
            "redis.clients.jedis.commands.ProtocolCommand",
            "io/hotkey/agent/instrument/jedis/v3_0/",
            List.of("Jedis3Call", "Jedis3Calls"));
  }
}
