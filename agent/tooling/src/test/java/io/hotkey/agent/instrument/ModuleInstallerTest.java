package io.hotkey.agent.instrument;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static net.bytebuddy.matcher.ElementMatchers.any;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.matcher.ElementMatcher;
import org.junit.jupiter.api.Test;

class ModuleInstallerTest {
  private static final String LIBRARY = "io.hotkey.agent.instrument.startahead.";

  @Test
  void theLibrarysFirstClassStartsTheAgentOnItsOwnThreadAndACandidateWaitsForIt() throws Exception {
    Instrumentation instrumentation = ByteBuddyAgent.install();
    CompletableFuture<String> startedOn = new CompletableFuture<>();
    CountDownLatch finishStart = new CountDownLatch(1);
    List<ClassFileTransformer> transformers =
        ModuleInstaller.install(
            instrumentation,
            List.of(new StartAheadModule()),
            Map.of(),
            () -> {
              startedOn.complete(Thread.currentThread().getName());
              assertTrue(finishStart.await(30, SECONDS), "the test never let the start finish");
              return new FailingListener();
            },
            new ModuleHealth(List.of()),
            null);
    try {
      assertFalse(startedOn.isDone(), "started before a class of the library loaded");

      Class.forName(LIBRARY + "LibraryType");
      assertEquals("hotkey-start", startedOn.get(10, SECONDS));

      CompletableFuture<Object> candidate =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return Class.forName(LIBRARY + "CandidateType").getMethod("answer").invoke(null);
                } catch (ReflectiveOperationException e) {
                  throw new IllegalStateException(e);
                }
              });
      assertStillWaiting(candidate);
      finishStart.countDown();
      assertEquals("advised", candidate.get(10, SECONDS), "the candidate was woven");
    } finally {
      finishStart.countDown();
      transformers.forEach(instrumentation::removeTransformer);
    }
  }

  /** The candidate's load is still waiting for the start after a while. */
  private static void assertStillWaiting(CompletableFuture<Object> candidate) throws Exception {
    try {
      Object early = candidate.get(300, MILLISECONDS);
      throw new AssertionError("the candidate loaded before the start finished: " + early);
    } catch (TimeoutException expected) {
      // waiting, as it must
    }
  }

  private static final class StartAheadModule implements InstrumentationModule {
    @Override
    public String name() {
      return "start-ahead-test";
    }

    @Override
    public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
      return any();
    }

    @Override
    public List<String> libraryPackages() {
      return List.of(LIBRARY.replace('.', '/'));
    }

    @Override
    public List<TypeInstrumentation> typeInstrumentations() {
      return List.of(
          new TypeInstrumentation() {
            @Override
            public String typeName() {
              return LIBRARY + "CandidateType";
            }

            @Override
            public void transform(TypeTransformer transformer) {
              transformer.applyAdvice(named("answer"), LIBRARY + "AnswerAdvice");
            }
          });
    }
  }
}
