package io.hotkey.agent.instrument.jedis.v4_0;

import io.hotkey.agent.instrument.ClassLoaderMatchers;
import io.hotkey.agent.instrument.ConnectionStateFieldInstrumentation;
import io.hotkey.agent.instrument.HelperClasses;
import io.hotkey.agent.instrument.InstrumentationModule;
import io.hotkey.agent.instrument.TypeInstrumentation;
import java.util.List;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Jedis 4.x to 8.x, recognised by {@code CommandObject}: every command is counted where it is sent,
 * every reply where it is read, and synchronous reads of hot keys are served around {@code
 * executeCommand}, of the pooled client before it borrows a connection, of the connection for the
 * classic API.
 */
public final class Jedis4InstrumentationModule implements InstrumentationModule {
  @Override
  public String name() {
    return "jedis-4+";
  }

  @Override
  public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
    return ClassLoaderMatchers.hasClass("redis.clients.jedis.CommandObject");
  }

  @Override
  public List<String> libraryPackages() {
    return List.of("redis/clients/jedis/");
  }

  @Override
  public List<TypeInstrumentation> typeInstrumentations() {
    return List.of(
        new JedisConnectionInstrumentation(),
        new ConnectionStateFieldInstrumentation(JedisConnectionInstrumentation.CONNECTION),
        new UnifiedJedisInstrumentation());
  }

  @Override
  public List<HelperClasses> helperClasses() {
    return List.of(Helpers.JEDIS_COMMANDS);
  }

  /** Created on first use, as the module is before any Jedis class loads. */
  private static final class Helpers {
    /** {@link JedisCommands}, defined next to Jedis' {@code Rawable} in each loader with Jedis. */
    static final HelperClasses JEDIS_COMMANDS =
        new HelperClasses(
            "redis.clients.jedis.args.Rawable",
            "io/hotkey/agent/instrument/jedis/v4_0/",
            List.of("JedisCommands"));
  }
}
