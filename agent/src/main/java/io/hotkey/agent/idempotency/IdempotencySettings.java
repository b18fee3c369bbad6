package io.hotkey.agent.idempotency;

import io.hotkey.config.HotkeyConfig;
import io.hotkey.config.RouteTable;
import io.hotkey.config.StoreFailurePolicy;
import java.time.Duration;
import java.util.List;

/** The engine's part of the configuration ({@code hotkey.idempotency.*}). */
public final class IdempotencySettings {
  final RouteTable routes;
  final String header;
  final List<String> scopeHeaders;
  final boolean requireKey;
  final Duration ttl;
  final Duration lease;
  final long maxBody;
  final StoreFailurePolicy onStoreFailure;

  public IdempotencySettings(
      RouteTable routes,
      String header,
      List<String> scopeHeaders,
      boolean requireKey,
      Duration ttl,
      Duration lease,
      long maxBody,
      StoreFailurePolicy onStoreFailure) {
    this.routes = routes;
    this.header = header;
    this.scopeHeaders = List.copyOf(scopeHeaders);
    this.requireKey = requireKey;
    this.ttl = ttl;
    this.lease = lease;
    this.maxBody = maxBody;
    this.onStoreFailure = onStoreFailure;
  }

  public static IdempotencySettings from(HotkeyConfig config) {
    return new IdempotencySettings(
        config.idempotencyRoutes(),
        config.idempotencyHeader(),
        config.idempotencyScopeHeaders(),
        config.idempotencyRequireKey(),
        config.idempotencyTtl(),
        config.idempotencyLease(),
        config.idempotencyMaxBody(),
        config.idempotencyOnStoreFailure());
  }

  public RouteTable routes() {
    return routes;
  }

  public String header() {
    return header;
  }

  public Duration lease() {
    return lease;
  }

  public Duration ttl() {
    return ttl;
  }

  /**
   * Largest response body stored for replay, and largest request body buffered for the fingerprint.
   */
  public long maxBody() {
    return maxBody;
  }
}
