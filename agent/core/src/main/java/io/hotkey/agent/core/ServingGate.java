package io.hotkey.agent.core;

import java.util.List;

/**
 * Tells the gateways whether a connection's client module may serve in the connection's class
 * loader (all or nothing per module and loader), and reports each module's state there.
 */
public interface ServingGate {
  /** Every connection may serve: for tests and cores without instrumentation. */
  ServingGate OPEN =
      new ServingGate() {
        @Override
        public ServingPermit permitFor(Object connection) {
          return ServingPermit.ALWAYS;
        }

        @Override
        public List<ModuleState> states() {
          return List.of();
        }

        @Override
        public List<String> modules() {
          return List.of();
        }
      };

  /** Asked once per connection, on the application's thread, never while a class is woven. */
  ServingPermit permitFor(Object connection);

  /** One line per client module and class loader where the module has had a connection. */
  List<ModuleState> states();

  /** The names of the client modules the gate covers. */
  List<String> modules();

  /** What a client module does in one class loader, and why when it does not serve. */
  final class ModuleState {
    /** Every hook is woven: counts, invalidates and serves. */
    public static final String SERVING = "serving";

    /** A hook failed to weave: counts what its woven hooks see, never serves. */
    public static final String COUNTING = "counting";

    public final String module;
    public final String loader;
    public final String state;

    /** Null when serving; else the class left unwoven and why. */
    public final String reason;

    public ModuleState(String module, String loader, String state, String reason) {
      this.module = module;
      this.loader = loader;
      this.state = state;
      this.reason = reason;
    }

    public static List<String> all() {
      return List.of(SERVING, COUNTING);
    }
  }
}
