package io.hotkey.agent.instrument;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ChecksumsTest {
  @Test
  void theSameInputsGiveTheSameValueAndAnyChangeAnother() {
    byte[] one = new Checksums().update("a").update(new byte[] {1, 2, 3}).value();
    assertArrayEquals(one, new Checksums().update("a").update(new byte[] {1, 2, 3}).value());
    assertEquals(Checksums.BYTES, one.length);
    List<String> values =
        List.of(
            new Checksums().update("a").update(new byte[] {1, 2, 3}).hex(),
            new Checksums().update("b").update(new byte[] {1, 2, 3}).hex(),
            new Checksums().update("a").update(new byte[] {1, 2, 4}).hex(),
            new Checksums().update("a").update(new byte[] {1, 2, 3, 0}).hex(),
            new Checksums().update("a").update(new byte[] {2, 1, 3}).hex(),
            // framed: a field's end never moves into the next one
            new Checksums().update("ab").update("c").hex(),
            new Checksums().update("a").update("bc").hex());
    Set<String> distinct = values.stream().collect(Collectors.toSet());
    assertEquals(values.size(), distinct.size(), () -> "two inputs share a value: " + values);
    assertEquals(2 * Checksums.BYTES, values.get(0).length());
  }
}
