package io.hotkey.agent.core;

import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.core.multiplexed.MultiplexedGateway;
import io.hotkey.agent.core.threadbound.ThreadBoundGateway;
import io.hotkey.agent.detect.HotKeyDetector;

/**
 * The two gateways client adapters report to, one per way a client uses its connections, and the
 * classification step they share: {@link ThreadBoundGateway} for clients whose caller's thread
 * sends and reads (Jedis), {@link MultiplexedGateway} for clients whose replies are decoded on an
 * I/O thread (Lettuce). {@link RedisHooks} hands each hook to the one it belongs to.
 */
public final class RedisGateway {
  private final CommandClassifier classifier;
  private final ThreadBoundGateway threadBound;
  private final MultiplexedGateway multiplexed;
  private final ServerSightings sightings = new ServerSightings();

  /**
   * @param cache {@link NearCache#DISABLED} when local serving is off: commands are still counted
   *     and hot keys still reported
   * @param serving whether a connection's client module may serve in its class loader
   */
  public RedisGateway(
      HotKeyDetector detector,
      HotKeyRegistry hotKeys,
      NearCache cache,
      KeyVersions versions,
      AgentErrors errors,
      ServingGate serving) {
    this.classifier = new CommandClassifier(detector, hotKeys, errors);
    this.threadBound = new ThreadBoundGateway(classifier, cache, versions, serving, sightings);
    this.multiplexed = new MultiplexedGateway(classifier, cache, versions, serving);
  }

  public ThreadBoundGateway threadBound() {
    return threadBound;
  }

  public MultiplexedGateway multiplexed() {
    return multiplexed;
  }

  /** The servers the application's clients were seen talking to. */
  public ServerSightings sightings() {
    return sightings;
  }

  public AgentErrors errors() {
    return classifier.errors();
  }

  /** Commands counted as reads, on every client. */
  public long reads() {
    return classifier.reads();
  }

  /** Commands counted as writes, on every client. */
  public long writes() {
    return classifier.writes();
  }
}
