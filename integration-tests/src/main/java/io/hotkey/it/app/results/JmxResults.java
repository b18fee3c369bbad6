package io.hotkey.it.app.results;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent's MBean figures a scenario reports at one point of its run ({@code Child.reportJmx}),
 * under {@code <point>.jmx.<attribute>}. Without the MBean only {@link #registered} is reported.
 *
 * @param registered whether the agent's MBean was registered
 * @param hotKeys the keys the agent held hot
 */
public record JmxResults(
    ResultName<Boolean> registered,
    ResultName<Long> commands,
    ResultName<Long> cacheHits,
    ResultName<Long> cacheMisses,
    ResultName<Long> cacheEvictions,
    ResultName<Long> cacheBytes,
    ResultName<Long> hotKeyCount,
    ResultName<Long> agentErrors,
    ResultName<List<String>> hotKeys) {

  /** The figures reported at {@code point} (e.g. {@code afterWarmup}). */
  public static JmxResults at(String point) {
    String prefix = point + ".jmx.";
    return new JmxResults(
        ResultName.flag(prefix + "registered"),
        ResultName.number(prefix + "Commands"),
        ResultName.number(prefix + "CacheHits"),
        ResultName.number(prefix + "CacheMisses"),
        ResultName.number(prefix + "CacheEvictions"),
        ResultName.number(prefix + "CacheBytes"),
        ResultName.number(prefix + "HotKeyCount"),
        ResultName.number(prefix + "AgentErrors"),
        ResultName.texts(prefix + "HotKeys"));
  }

  /** The counters, by the name of their MBean attribute. */
  public Map<String, ResultName<Long>> counters() {
    Map<String, ResultName<Long>> counters = new LinkedHashMap<>();
    counters.put("Commands", commands);
    counters.put("CacheHits", cacheHits);
    counters.put("CacheMisses", cacheMisses);
    counters.put("CacheEvictions", cacheEvictions);
    counters.put("CacheBytes", cacheBytes);
    counters.put("HotKeyCount", hotKeyCount);
    counters.put("AgentErrors", agentErrors);
    return counters;
  }
}
