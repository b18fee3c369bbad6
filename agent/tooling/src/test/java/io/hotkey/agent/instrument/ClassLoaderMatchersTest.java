package io.hotkey.agent.instrument;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.bytebuddy.matcher.ElementMatcher;
import org.junit.jupiter.api.Test;

class ClassLoaderMatchersTest {
  @Test
  void loadersThatClaimToBeEqualGetAnswersOfTheirOwn() {
    ElementMatcher<ClassLoader> hasThisTest =
        ClassLoaderMatchers.hasClass(ClassLoaderMatchersTest.class.getName());
    ClassLoader withoutIt = new SelfEqualLoader(null);
    ClassLoader withIt = new SelfEqualLoader(ClassLoaderMatchersTest.class.getClassLoader());

    assertFalse(hasThisTest.matches(withoutIt), "a loader over the boot loader only");
    assertTrue(hasThisTest.matches(withIt), "given the other loader's answer");
    assertFalse(hasThisTest.matches(withoutIt), "the first loader's answer changed");
  }

  /** A loader equal to every other of its class, as a loader may claim to be. */
  private static final class SelfEqualLoader extends ClassLoader {
    SelfEqualLoader(ClassLoader parent) {
      super(parent);
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof SelfEqualLoader;
    }

    @Override
    public int hashCode() {
      return 1;
    }
  }
}
