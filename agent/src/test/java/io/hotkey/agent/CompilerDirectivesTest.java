package io.hotkey.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.List;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** Against this JVM's own compiler directives, read back as {@code jcmd <pid> Compiler.directives_print} prints them. */
class CompilerDirectivesTest {

  @Test
  void aGrownMethodIsInlinedByADirectiveAddedOnTopOfTheDefault() throws Exception {
    String before = diagnosticCommand("compilerDirectivesPrint");
    CompilerDirectives.forceInline(List.of("io/hotkey/test/Grown.dispatch", "io/hotkey/test/Grown.complete"),
        List.of("-Xmx512m"));
    try {
      String after = diagnosticCommand("compilerDirectivesPrint");
      assertFalse(before.contains("io/hotkey/test/Grown"), before);
      assertTrue(after.contains("+io/hotkey/test/Grown.dispatch") && after.contains("+io/hotkey/test/Grown.complete"),
          after);
      assertTrue(after.indexOf("io/hotkey/test/Grown") < after.indexOf("Directive: (default)"),
          () -> "the agent's directive is matched before the default one: " + after);
    } finally {
      diagnosticCommand("compilerDirectivesRemove");
    }
    assertEquals(before, diagnosticCommand("compilerDirectivesPrint"));
  }

  @Test
  void nothingIsAddedOverTheApplicationsOwnDirectives() throws Exception {
    String before = diagnosticCommand("compilerDirectivesPrint");
    CompilerDirectives.forceInline(List.of("io/hotkey/test/Grown.dispatch"),
        List.of("-XX:CompilerDirectivesFile=/etc/service/directives.json"));
    assertEquals(before, diagnosticCommand("compilerDirectivesPrint"));
  }

  private static String diagnosticCommand(String operation) throws Exception {
    return String.valueOf(ManagementFactory.getPlatformMBeanServer().invoke(
        new ObjectName(CompilerDirectives.DIAGNOSTIC_COMMAND), operation, new Object[] {new String[0]},
        new String[] {String[].class.getName()}));
  }
}
