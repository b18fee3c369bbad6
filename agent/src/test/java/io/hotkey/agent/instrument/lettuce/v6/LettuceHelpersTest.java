package io.hotkey.agent.instrument.lettuce.v6;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.instrument.HelperClasses;
import io.lettuce.core.RedisChannelHandler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The dispatch helpers are defined next to the {@code RedisChannelHandler} they serve, under its
 * package, and a Lettuce copy that cannot take them passes its commands through instead of failing.
 */
class LettuceHelpersTest {

  @Test
  void helpersAreDefinedOnceNextToTheHandler() {
    LettuceDispatch dispatch = LettuceHelpers.dispatch(RedisChannelHandler.class);
    assertEquals("io.lettuce.core.HotkeyAgentDispatcher", dispatch.getClass().getName());
    assertSame(RedisChannelHandler.class.getClassLoader(), dispatch.getClass().getClassLoader());
    assertSame(RedisChannelHandler.class.getProtectionDomain(), dispatch.getClass().getProtectionDomain());
    assertSame(dispatch, LettuceHelpers.dispatch(RedisChannelHandler.class));
  }

  @Test
  void renamedHelpersNameNoClassOfTheirSourcePackage() throws IOException {
    for (String helper : LettuceHelpers.HELPERS) {
      String text = new String(HelperClasses.renamedBytes(LettuceHelpers.SOURCE_PACKAGE, helper, "io/lettuce/core/",
          UnaryOperator.identity()), StandardCharsets.ISO_8859_1);
      assertTrue(!text.contains(LettuceHelpers.SOURCE_PACKAGE) && text.contains("io/lettuce/core/HotkeyAgent" + helper),
          helper + " was not moved into Lettuce's package");
    }
  }

  @Test
  void aHandlerThatCannotTakeHelpersPassesCommandsThrough() {
    // java.lang is not open to the agent: the private lookup the definition needs is refused
    LettuceDispatch dispatch = LettuceHelpers.dispatch(String.class);
    assertNull(dispatch.dispatch(new Object(), new Object()));
    dispatch.dispatchBatch(new Object(), List.of(new Object()));
  }
}
