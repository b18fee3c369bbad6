package io.hotkey.agent.detect;

/**
 * Told about promotions and demotions. Called only from {@link HotKeyDetector#tick()}, i.e. on the
 * agent's scheduler thread, never on an application thread. Within one tick all demotions are
 * reported before the promotions (so a listener that mirrors the hot set never holds more than
 * {@code topK} keys). An exception thrown by the listener is swallowed by the detector (the agent
 * never breaks the application) and does not stop the other notifications.
 */
public interface HotKeyListener {

  /** {@code k} became hot: its windowed rate reached the threshold and it is among the top k. */
  void onPromoted(KeyRate k);

  /**
   * {@code k} is no longer hot (below threshold for the cool-down, or displaced by hotter keys).
   */
  void onDemoted(KeyRate k);

  /** A listener that ignores everything. */
  HotKeyListener NONE =
      new HotKeyListener() {
        @Override
        public void onPromoted(KeyRate k) {}

        @Override
        public void onDemoted(KeyRate k) {}
      };
}
