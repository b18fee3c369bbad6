package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every library the agent bundles is relocated under {@code io.hotkey.shaded}: no class of the
 * jar's top level can stand in for one of the application's, and no service file announces one.
 */
class ShadedJarIT {

  @Test
  void everyBundledClassIsRelocated() throws Exception {
    try (JarFile jar = new JarFile(ItConfig.agentJar().toFile())) {
      List<String> names = jar.stream().map(e -> e.getName()).collect(Collectors.toList());
      List<String> outside =
          names.stream()
              .filter(n -> n.endsWith(".class"))
              .filter(n -> !n.startsWith("io/hotkey/") && !n.startsWith("META-INF/"))
              .collect(Collectors.toList());
      assertEquals(List.of(), outside, "classes outside io/hotkey/");
      assertEquals(
          List.of(),
          names.stream()
              .filter(n -> n.startsWith("META-INF/services/") && !n.endsWith("/"))
              .collect(Collectors.toList()),
          "service files");
      for (String relocated :
          List.of(
              "io/hotkey/shaded/micrometer/prometheusmetrics/PrometheusMeterRegistry.class",
              "io/hotkey/shaded/micrometer/core/instrument/MeterRegistry.class",
              "io/hotkey/shaded/prometheus/metrics/expositionformats/PrometheusTextFormatWriter.class",
              "io/hotkey/shaded/hdrhistogram/Histogram.class")) {
        assertTrue(names.contains(relocated), () -> relocated + " missing");
      }
      assertTrue(
          names.contains("io/hotkey/agent/http/page/index.html")
              && names.contains("io/hotkey/agent/http/page/live.js")
              && names.contains("io/hotkey/agent/http/page/live.css"),
          "the live page's files");
    }
  }
}
