package io.hotkey.agent;

import io.hotkey.agent.core.AgentLog;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import javax.management.ObjectName;

/**
 * Keeps HotSpot's C2 inlining the methods that the agent's inlined advice made too big for it. C2 inlines a
 * hot callee only up to 325 bytes of bytecode ({@code FreqInlineSize}); Lettuce's
 * {@code RedisChannelHandler.dispatch} is 91 bytes, 682 with the advice, and left out of its callers it cost
 * the Lettuce async cold-key benchmark about 2% of its throughput (README, eighth round). A compiler directive
 * that inlines it everywhere is added through the {@code DiagnosticCommand} MBean, as
 * {@code jcmd <pid> Compiler.directives_add} would.
 *
 * <p>A directive matches every method, so it would shadow directives of the application's own: with
 * {@code -XX:CompilerDirectivesFile} on the command line nothing is added. A JVM without the command
 * (not HotSpot) is left as it is.
 */
final class CompilerDirectives {
  static final String DIAGNOSTIC_COMMAND = "com.sun.management:type=DiagnosticCommand";

  private CompilerDirectives() {}

  /** @param methods {@code package/Class.method}, as directives name them */
  static void forceInline(List<String> methods) {
    forceInline(methods, ManagementFactory.getRuntimeMXBean().getInputArguments());
  }

  /** @param jvmArguments the JVM's command-line arguments */
  static void forceInline(List<String> methods, List<String> jvmArguments) {
    if (methods.isEmpty()) {
      return;
    }
    String named = String.join(", ", methods);
    if (jvmArguments.stream().anyMatch(argument -> argument.startsWith("-XX:CompilerDirectivesFile"))) {
      AgentLog.info("compiler directive not added (the application has its own): inline " + named);
      return;
    }
    Path file = null;
    try {
      String inline = methods.stream().map(method -> "\"+" + method + "\"").collect(Collectors.joining(", "));
      file = Files.createTempFile("hotkey-agent-directives", ".json");
      Files.write(file, ("[{ match: \"*.*\", inline: [" + inline + "] }]").getBytes(StandardCharsets.US_ASCII));
      String result = String.valueOf(ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName(DIAGNOSTIC_COMMAND), "compilerDirectivesAdd",
          new Object[] {new String[] {file.toString()}}, new String[] {String[].class.getName()}));
      AgentLog.info(result.contains("1 compiler directives added")
          ? "compiler directive added: inline " + named
          : "compiler directive not added (" + result.trim() + "): inline " + named);
    } catch (Exception | LinkageError e) {
      AgentLog.info("compiler directive not added (" + e + "): inline " + named);
    } finally {
      if (file != null) {
        try {
          Files.deleteIfExists(file);
        } catch (java.io.IOException ignored) {
          // a temporary file left behind is all that is lost
        }
      }
    }
  }
}
