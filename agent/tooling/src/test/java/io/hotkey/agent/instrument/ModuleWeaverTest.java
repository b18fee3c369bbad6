package io.hotkey.agent.instrument;

import static net.bytebuddy.matcher.ElementMatchers.any;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.none;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import net.bytebuddy.matcher.ElementMatcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModuleWeaverTest {
  private static final String CANDIDATE = "io.hotkey.agent.instrument.startahead.CandidateType";

  @Test
  void aModulesHelpersAreAskedForOnlyWhenOneOfItsClassesIsWovenAndOnlyOnce() throws Exception {
    CountingModule present = new CountingModule("present", any());
    CountingModule absent = new CountingModule("absent", none());
    ModuleWeaver weaver =
        new ModuleWeaver(
            List.of(absent, present),
            new FailingListener(),
            new ModuleHealth(List.of()),
            null,
            null);
    assertEquals(0, present.helperRequests.get() + absent.helperRequests.get(), "at construction");

    ClassLoader loader = ModuleWeaverTest.class.getClassLoader();
    byte[] classFile = classFile(loader);
    String internalName = CANDIDATE.replace('.', '/');
    assertNotNull(weaver.transform(loader, internalName, null, classFile, false));
    assertNotNull(weaver.transform(loader, internalName, null, classFile, false));

    assertEquals(1, present.helperRequests.get(), "the woven module's, once");
    assertEquals(0, absent.helperRequests.get(), "the module whose library is not there");
  }

  @Test
  void aClassFoundInTheWeaveCacheIsTheOneWovenBeforeAndNeedsNoTransformer(@TempDir Path dir)
      throws Exception {
    WovenClassCache cache = new WovenClassCache(dir, new byte[] {1}, Runnable::run);
    ClassLoader loader = ModuleWeaverTest.class.getClassLoader();
    byte[] classFile = classFile(loader);
    String internalName = CANDIDATE.replace('.', '/');
    CountingModule weaving = new CountingModule("present", any());
    byte[] woven =
        new ModuleWeaver(
                List.of(weaving), new FailingListener(), new ModuleHealth(List.of()), null, cache)
            .transform(loader, internalName, null, classFile, false);
    assertEquals(1, weaving.transforms.get(), "the first run asks the instrumentation");

    CountingModule cached = new CountingModule("present", any());
    byte[] found =
        new ModuleWeaver(
                List.of(cached), new FailingListener(), new ModuleHealth(List.of()), null, cache)
            .transform(loader, internalName, null, classFile, false);

    assertArrayEquals(woven, found, "the woven bytes of the first run");
    assertEquals(0, cached.transforms.get(), "the instrumentation was asked again");
    assertEquals(1, cached.helperRequests.get(), "the module's helpers are still defined");
  }

  @Test
  void anEntryNamingAHookThisAgentLacksIsWovenAgain(@TempDir Path dir) throws Exception {
    WovenClassCache cache = new WovenClassCache(dir, new byte[] {1}, Runnable::run);
    ClassLoader loader = ModuleWeaverTest.class.getClassLoader();
    byte[] classFile = classFile(loader);
    String key = cache.key(CANDIDATE, false, List.of("present#0"), classFile);
    cache.store(key, new WovenClassCache.Weave(List.of("gone#0"), new byte[] {1, 2, 3}));
    CountingModule module = new CountingModule("present", any());

    byte[] woven =
        new ModuleWeaver(
                List.of(module), new FailingListener(), new ModuleHealth(List.of()), null, cache)
            .transform(loader, CANDIDATE.replace('.', '/'), null, classFile, false);

    assertEquals(1, module.transforms.get(), "the class was not woven again");
    assertNotNull(woven);
    assertArrayEquals(woven, cache.find(key).classFile, "the entry was not replaced");
  }

  private static byte[] classFile(ClassLoader loader) throws Exception {
    try (InputStream in = loader.getResourceAsStream(CANDIDATE.replace('.', '/') + ".class")) {
      return in.readAllBytes();
    }
  }

  /** Names {@link #CANDIDATE} in the loaders {@code loaders} matches, counting helper requests. */
  private static final class CountingModule implements InstrumentationModule {
    final AtomicInteger helperRequests = new AtomicInteger();
    final AtomicInteger transforms = new AtomicInteger();
    private final String name;
    private final ElementMatcher.Junction<ClassLoader> loaders;

    CountingModule(String name, ElementMatcher.Junction<ClassLoader> loaders) {
      this.name = name;
      this.loaders = loaders;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
      return loaders;
    }

    @Override
    public List<String> libraryPackages() {
      return List.of();
    }

    @Override
    public List<TypeInstrumentation> typeInstrumentations() {
      return List.of(
          new TypeInstrumentation() {
            @Override
            public String typeName() {
              return CANDIDATE;
            }

            @Override
            public void transform(TypeTransformer transformer) {
              transforms.incrementAndGet();
              transformer.applyAdvice(
                  named("answer"), "io.hotkey.agent.instrument.startahead.AnswerAdvice");
            }
          });
    }

    @Override
    public List<HelperClasses> helperClasses() {
      helperRequests.incrementAndGet();
      return List.of();
    }
  }
}
