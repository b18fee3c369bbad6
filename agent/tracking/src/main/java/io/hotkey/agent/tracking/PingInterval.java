package io.hotkey.agent.tracking;

import java.util.concurrent.TimeUnit;

/**
 * How often a tracking connection pings its server. A ping costs the server about what a {@code
 * GET} does (13 to 16 µs of its CPU on a 2-core VM), and every instance of a fleet pings every
 * server it tracks: at 250 ms, 10,000 instances would cost a server more than half a core. So the
 * interval grows with the server's {@code tracking_clients} ({@code INFO clients}), keeping all of
 * them together near {@link #PINGS_PER_SECOND} a server, between {@link #MIN_NANOS} and {@link
 * #MAX_NANOS}. The interval bounds how long a link that died without a word (no reset, no close)
 * goes unnoticed: that long plus the reply timeout.
 */
final class PingInterval {
  static final long MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
  static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(5);

  /** The pings a second all tracking clients of a server send together: about 4% of a core. */
  static final long PINGS_PER_SECOND = 2_500;

  /** How often a tracker asks its server again how many tracking clients it has. */
  static final long RECOUNT_NANOS = TimeUnit.SECONDS.toNanos(60);

  /**
   * The second count of a session comes this soon after the first: after a restart of the server
   * the first sessions to come back see few of the fleet's and would ping often for a minute.
   */
  static final long FIRST_RECOUNT_NANOS = TimeUnit.SECONDS.toNanos(5);

  private PingInterval() {}

  /** The interval for a server with {@code trackingClients}. */
  static long forTrackingClients(long trackingClients) {
    long nanos = TimeUnit.SECONDS.toNanos(1) / PINGS_PER_SECOND * trackingClients;
    return Math.max(MIN_NANOS, Math.min(MAX_NANOS, nanos));
  }
}
