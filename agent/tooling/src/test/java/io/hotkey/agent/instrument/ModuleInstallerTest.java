package io.hotkey.agent.instrument;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static net.bytebuddy.matcher.ElementMatchers.any;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.none;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.matcher.ElementMatcher;
import org.junit.jupiter.api.Test;

class ModuleInstallerTest {
  private static final String LIBRARY = "io.hotkey.agent.instrument.startahead.";

  @Test
  void theLibrarysFirstClassStartsTheAgentOnItsOwnThreadAndACandidateIsWovenMeanwhile()
      throws Exception {
    Instrumentation instrumentation = ByteBuddyAgent.install();
    CompletableFuture<String> startedOn = new CompletableFuture<>();
    CountDownLatch finishStart = new CountDownLatch(1);
    List<String> toldAfterTheStart = new CopyOnWriteArrayList<>();
    List<ClassFileTransformer> transformers =
        install(
            instrumentation,
            new StartAheadModule(LIBRARY, LIBRARY + "CandidateType", any()),
            () -> {
              startedOn.complete(Thread.currentThread().getName());
              assertTrue(finishStart.await(30, SECONDS), "the test never let the start finish");
              return new RecordingListener(toldAfterTheStart);
            });
    try {
      assertFalse(startedOn.isDone(), "started before a class of the library loaded");

      Class.forName(LIBRARY + "LibraryType");
      assertEquals("hotkey-start", startedOn.get(10, SECONDS));

      CompletableFuture<Object> candidate = new CompletableFuture<>();
      Thread loading = answerOnItsOwnThread(LIBRARY + "CandidateType", candidate);
      assertWovenAndWaitingForTheStart(loading);
      assertStillWaiting(candidate);

      finishStart.countDown();
      assertEquals("advised", candidate.get(10, SECONDS), "the candidate loads woven");
      assertEquals(
          List.of(LIBRARY + "CandidateType"),
          toldAfterTheStart,
          "what the weaver reported during the start reaches the agent's listener");
    } finally {
      finishStart.countDown();
      transformers.forEach(instrumentation::removeTransformer);
    }
  }

  @Test
  void aCandidateThatComesBeforeAnyLibraryClassStartsTheAgentOnItsOwnThread() throws Exception {
    Instrumentation instrumentation = ByteBuddyAgent.install();
    String library = "io.hotkey.agent.instrument.startfirst.";
    CompletableFuture<String> startedOn = new CompletableFuture<>();
    List<ClassFileTransformer> transformers =
        install(
            instrumentation,
            new StartAheadModule(library, library + "FirstCandidate", any()),
            () -> {
              startedOn.complete(Thread.currentThread().getName());
              return new FailingListener();
            });
    try {
      CompletableFuture<Object> candidate = new CompletableFuture<>();
      Thread loading = answerOnItsOwnThread(library + "FirstCandidate", candidate);

      assertEquals("advised", candidate.get(10, SECONDS), "the candidate loads woven");
      assertEquals(
          loading.getName(),
          startedOn.get(),
          "no other thread the candidate's load would wait for while holding its locks");
    } finally {
      transformers.forEach(instrumentation::removeTransformer);
    }
  }

  @Test
  void aCandidateItsModuleLeavesAsItIsStartsTheAgentAheadAndWaitsForNothing() throws Exception {
    Instrumentation instrumentation = ByteBuddyAgent.install();
    String library = "io.hotkey.agent.instrument.startunwoven.";
    CompletableFuture<String> startedOn = new CompletableFuture<>();
    CountDownLatch finishStart = new CountDownLatch(1);
    List<ClassFileTransformer> transformers =
        install(
            instrumentation,
            new StartAheadModule(library, library + "UnwovenCandidate", none()),
            () -> {
              startedOn.complete(Thread.currentThread().getName());
              assertTrue(finishStart.await(30, SECONDS), "the test never let the start finish");
              return new FailingListener();
            });
    try {
      CompletableFuture<Object> candidate = new CompletableFuture<>();
      answerOnItsOwnThread(library + "UnwovenCandidate", candidate);

      assertEquals(
          "original", candidate.get(10, SECONDS), "loaded as it is while the start goes on");
      assertEquals("hotkey-start", startedOn.get(10, SECONDS));
    } finally {
      finishStart.countDown();
      transformers.forEach(instrumentation::removeTransformer);
    }
  }

  @Test
  void onceTheStartFailedNothingIsWoven() throws Exception {
    Instrumentation instrumentation = ByteBuddyAgent.install();
    String library = "io.hotkey.agent.instrument.startfailed.";
    AtomicInteger transformersBuilt = new AtomicInteger();
    InstrumentationModule module =
        new StartAheadModule(library, library + "FirstCandidate", any()) {
          @Override
          public List<TypeInstrumentation> typeInstrumentations() {
            return List.of(
                counted(library + "FirstCandidate", transformersBuilt),
                counted(library + "SecondCandidate", transformersBuilt));
          }
        };
    List<ClassFileTransformer> transformers =
        install(
            instrumentation,
            module,
            () -> {
              throw new IllegalStateException("the start fails");
            });
    try {
      CompletableFuture<Object> first = new CompletableFuture<>();
      answerOnItsOwnThread(library + "FirstCandidate", first);
      assertEquals("original", first.get(10, SECONDS), "woven code of an agent that never started");
      assertEquals(1, transformersBuilt.get(), "the first candidate is woven before the start");

      CompletableFuture<Object> second = new CompletableFuture<>();
      answerOnItsOwnThread(library + "SecondCandidate", second);
      assertEquals("original", second.get(10, SECONDS));
      assertEquals(1, transformersBuilt.get(), "a class was woven after the start failed");
    } finally {
      transformers.forEach(instrumentation::removeTransformer);
    }
  }

  /** Advises {@code type}'s {@code answer()}, counting the transformers built from it. */
  private static TypeInstrumentation counted(String type, AtomicInteger built) {
    return new TypeInstrumentation() {
      @Override
      public String typeName() {
        return type;
      }

      @Override
      public void transform(TypeTransformer transformer) {
        built.incrementAndGet();
        transformer.applyAdvice(named("answer"), LIBRARY + "AnswerAdvice");
      }
    };
  }

  /** {@code module}, installed as the agent installs its modules. */
  private static List<ClassFileTransformer> install(
      Instrumentation instrumentation,
      InstrumentationModule module,
      ModuleInstaller.Startup startup) {
    return ModuleInstaller.install(
        instrumentation,
        List.of(module),
        Map.of(),
        startup,
        new ModuleHealth(List.of()),
        null,
        null);
  }

  /** Loads {@code type} and calls its {@code answer()} on a thread of its own, started. */
  private static Thread answerOnItsOwnThread(String type, CompletableFuture<Object> answer) {
    Thread loading =
        new Thread(
            () -> {
              try {
                answer.complete(Class.forName(type).getMethod("answer").invoke(null));
              } catch (Throwable t) {
                answer.completeExceptionally(t);
              }
            },
            "loads-the-candidate");
    loading.start();
    return loading;
  }

  /** The thread loading the candidate has woven it and waits for the start to hand it over. */
  private static void assertWovenAndWaitingForTheStart(Thread loading) throws Exception {
    long deadline = System.nanoTime() + SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      StackTraceElement[] stack = loading.getStackTrace();
      for (int i = 0; i + 1 < stack.length; i++) {
        // waiting after the weave, not before it, when the weaver is first asked for
        if (stack[i].getMethodName().equals("awaitStart")
            && stack[i + 1].getClassName().endsWith("$Gate")) {
          return;
        }
      }
      Thread.sleep(10);
    }
    throw new AssertionError(
        "the candidate was not woven during the start: "
            + Arrays.toString(loading.getStackTrace()));
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

  /**
   * Advises {@code candidate}'s {@code answer()} in the loaders {@code loaders} matches; {@code
   * library} is its library's package.
   */
  private static class StartAheadModule implements InstrumentationModule {
    private final String library;
    private final String candidate;
    private final ElementMatcher.Junction<ClassLoader> loaders;

    StartAheadModule(
        String library, String candidate, ElementMatcher.Junction<ClassLoader> loaders) {
      this.library = library;
      this.candidate = candidate;
      this.loaders = loaders;
    }

    @Override
    public String name() {
      return "start-ahead-test";
    }

    @Override
    public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
      return loaders;
    }

    @Override
    public List<String> libraryPackages() {
      return List.of(library.replace('.', '/'));
    }

    @Override
    public List<TypeInstrumentation> typeInstrumentations() {
      return List.of(
          new TypeInstrumentation() {
            @Override
            public String typeName() {
              return candidate;
            }

            @Override
            public void transform(TypeTransformer transformer) {
              transformer.applyAdvice(named("answer"), LIBRARY + "AnswerAdvice");
            }
          });
    }
  }

  /** Records the names of the classes it is told were transformed, and failures as text. */
  private static final class RecordingListener implements InstrumentationListener {
    private final List<String> told;

    RecordingListener(List<String> told) {
      this.told = told;
    }

    @Override
    public void transformed(String typeName, boolean retransformed) {
      told.add(typeName);
    }

    @Override
    public void failed(String typeName, Throwable error) {
      told.add(typeName + " failed: " + error);
    }
  }
}
