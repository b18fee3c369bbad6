package io.hotkey.agent.fleet;

import io.hotkey.agent.core.HotKeyRegistry.FleetHotKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps a fleet-hot key hot until the fleet's sum has stayed below the threshold for the detector's
 * cool-down ({@code hotkey.detect.cool-down}), as a key hot on one instance is kept: a fleet whose
 * sum sits near the threshold, or one window in which an instance reported late or its sampling
 * counted low, then does not demote the key on every instance at once and send all their reads to
 * Redis. The caller's clock; owned by one exchange thread.
 */
final class FleetCoolDown {

  /** A key published as fleet-hot: as the fleet last summed it, and when it was last hot. */
  private static final class Published {
    FleetHotKey key;
    long lastHotNanos;

    Published(FleetHotKey key, long lastHotNanos) {
      this.key = key;
      this.lastHotNanos = lastHotNanos;
    }
  }

  private final Map<String, Published> published = new LinkedHashMap<>();

  /**
   * The keys to publish after an exchange that found {@code hotNow}: those, and every key published
   * before whose last hot exchange is less than {@code coolDownNanos} before {@code nowNanos}.
   */
  List<FleetHotKey> next(List<FleetHotKey> hotNow, long nowNanos, long coolDownNanos) {
    for (FleetHotKey key : hotNow) {
      String name = new String(key.key(), StandardCharsets.ISO_8859_1);
      Published p = published.get(name);
      if (p == null) {
        published.put(name, new Published(key, nowNanos));
      } else {
        p.key = key;
        p.lastHotNanos = nowNanos;
      }
    }
    List<FleetHotKey> keys = new ArrayList<>(published.size());
    for (Iterator<Published> it = published.values().iterator(); it.hasNext(); ) {
      Published p = it.next();
      if (nowNanos - p.lastHotNanos >= coolDownNanos && p.lastHotNanos != nowNanos) {
        it.remove();
      } else {
        keys.add(p.key);
      }
    }
    return keys;
  }

  /** Forgets every key: the fleet's count is no longer known. */
  void clear() {
    published.clear();
  }
}
