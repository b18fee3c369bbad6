package io.hotkey.agent.instrument.jedis.v3_0;

import static net.bytebuddy.matcher.ElementMatchers.not;

import io.hotkey.agent.instrument.ClassLoaderMatchers;
import io.hotkey.agent.instrument.InstrumentationModule;
import io.hotkey.agent.instrument.TypeInstrumentation;
import java.util.List;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Jedis 3.x, recognised by {@code BinaryJedis} without Jedis 4's {@code CommandObject}: commands
 * are counted (so hot keys are detected and reported) and writes invalidate local entries; reads
 * are not served locally, because Jedis 3 decodes replies inside dozens of typed methods rather
 * than one funnel the agent could answer in.
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
    return List.of(new Jedis3ConnectionInstrumentation());
  }
}
