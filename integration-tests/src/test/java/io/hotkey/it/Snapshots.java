package io.hotkey.it;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A sync handler that snapshots Redis' commandstats at every SYNC point of a child (then runs an
 * optional action for that point, e.g. an external write), so a test can tell how many commands of
 * each kind reached Redis between two points of the child's scenario.
 */
public final class Snapshots implements AgentJvm.SyncHandler {
  private final Supplier<CommandStats> stats;
  private final Map<String, CommandStats> at = new LinkedHashMap<>();
  private final Map<String, AgentJvm.SyncHandler> actions = new HashMap<>();

  public Snapshots(Supplier<CommandStats> stats) {
    this.stats = stats;
  }

  public Snapshots on(String sync, AgentJvm.SyncHandler action) {
    actions.put(sync, action);
    return this;
  }

  @Override
  public String onSync(String name) throws Exception {
    at.put(name, stats.get());
    AgentJvm.SyncHandler a = actions.get(name);
    return a == null ? "" : a.onSync(name);
  }

  public boolean has(String sync) {
    return at.containsKey(sync);
  }

  public CommandStats delta(String from, String to) {
    CommandStats a = at.get(from);
    CommandStats b = at.get(to);
    if (a == null || b == null) {
      throw new AssertionError(
          "child never reached SYNC "
              + (a == null ? from : to)
              + " (reached: "
              + at.keySet()
              + ")");
    }
    return b.minus(a);
  }

  /** Calls of {@code command} that reached Redis between two SYNC points. */
  public long calls(String command, String from, String to) {
    return delta(from, to).calls(command);
  }

  /** Calls of all of {@code commands} together that reached Redis between two SYNC points. */
  public long calls(java.util.List<String> commands, String from, String to) {
    CommandStats d = delta(from, to);
    return commands.stream().mapToLong(d::calls).sum();
  }
}
