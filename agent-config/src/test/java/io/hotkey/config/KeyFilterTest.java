package io.hotkey.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class KeyFilterTest {

  @Test
  void acceptsWhatSomeIncludeMatchesAndNoExcludeMatches() {
    KeyFilter filter =
        new KeyFilter(Glob.parseList("user:*,item:*"), Glob.parseList("*:session,item:secret:*"));
    assertTrue(filter.accepts("user:1"));
    assertTrue(filter.accepts("item:7"));
    assertFalse(filter.accepts("order:1"));
    assertFalse(filter.accepts("user:1:session"));
    assertFalse(filter.accepts("item:secret:7"));
  }

  @Test
  void noIncludeAcceptsNothing() {
    assertFalse(new KeyFilter(List.of(), List.of()).accepts("user:1"));
  }

  @Test
  void noExcludeAcceptsEveryIncludedKey() {
    assertTrue(new KeyFilter(Glob.parseList("*"), List.of()).accepts("anything"));
  }
}
