package io.hotkey.agent.idempotency;

import io.hotkey.config.HotkeyConfig;
import io.hotkey.config.RoutePattern;
import io.hotkey.config.RouteTable;
import io.hotkey.config.StoreFailurePolicy;
import java.time.Duration;
import java.util.List;

/**
 * The engine's part of the configuration ({@code hotkey.idempotency.*}). The constructor takes the
 * key rules; scope cookies, the keyless guard and tokens are added with the {@code with} methods,
 * each returning a copy.
 */
public final class IdempotencySettings {
  private static final RouteTable NO_ROUTES = RouteTable.parse("");

  final RouteTable routes;
  final String header;
  final List<String> scopeHeaders;
  final boolean requireKey;
  final Duration ttl;
  final Duration lease;
  final long maxBody;
  final StoreFailurePolicy onStoreFailure;
  final List<String> scopeCookies;
  final RouteTable dedupeRoutes;
  final Duration dedupeWindow;
  final RoutePattern tokenEndpoint;
  final RouteTable tokenRoutes;
  final Duration tokenTtl;

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
    this.scopeCookies = List.of();
    this.dedupeRoutes = NO_ROUTES;
    this.dedupeWindow = Duration.ofSeconds(5);
    this.tokenEndpoint = null;
    this.tokenRoutes = NO_ROUTES;
    this.tokenTtl = Duration.ofMinutes(10);
  }

  /** {@code keyRules}' key rules with these cookies, keyless guard and tokens. */
  private IdempotencySettings(
      IdempotencySettings keyRules,
      List<String> scopeCookies,
      RouteTable dedupeRoutes,
      Duration dedupeWindow,
      RoutePattern tokenEndpoint,
      RouteTable tokenRoutes,
      Duration tokenTtl) {
    this.routes = keyRules.routes;
    this.header = keyRules.header;
    this.scopeHeaders = keyRules.scopeHeaders;
    this.requireKey = keyRules.requireKey;
    this.ttl = keyRules.ttl;
    this.lease = keyRules.lease;
    this.maxBody = keyRules.maxBody;
    this.onStoreFailure = keyRules.onStoreFailure;
    this.scopeCookies = List.copyOf(scopeCookies);
    this.dedupeRoutes = dedupeRoutes;
    this.dedupeWindow = dedupeWindow;
    this.tokenEndpoint = tokenEndpoint;
    this.tokenRoutes = tokenRoutes;
    this.tokenTtl = tokenTtl;
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
            config.idempotencyOnStoreFailure())
        .withScopeCookies(config.idempotencyScopeCookies())
        .withDedupe(config.idempotencyDedupeRoutes(), config.idempotencyDedupeWindow())
        .withTokens(
            config.idempotencyTokenEndpoint().orElse(null),
            config.idempotencyTokenRoutes(),
            config.idempotencyTokenTtl());
  }

  public IdempotencySettings withScopeCookies(List<String> cookies) {
    return new IdempotencySettings(
        this, cookies, dedupeRoutes, dedupeWindow, tokenEndpoint, tokenRoutes, tokenTtl);
  }

  /** Keyless requests on {@code dedupe} are deduplicated within {@code window}. */
  public IdempotencySettings withDedupe(RouteTable dedupe, Duration window) {
    return new IdempotencySettings(
        this, scopeCookies, dedupe, window, tokenEndpoint, tokenRoutes, tokenTtl);
  }

  /**
   * These settings with server-issued tokens.
   *
   * @param endpoint the route the agent answers with tokens; null for none
   */
  public IdempotencySettings withTokens(RoutePattern endpoint, RouteTable required, Duration life) {
    return new IdempotencySettings(
        this, scopeCookies, dedupeRoutes, dedupeWindow, endpoint, required, life);
  }

  /** These settings with other routes and require-key (a reloaded configuration). */
  public IdempotencySettings withKeyRules(RouteTable keyRoutes, boolean keyRequired) {
    return new IdempotencySettings(
            keyRoutes, header, scopeHeaders, keyRequired, ttl, lease, maxBody, onStoreFailure)
        .withScopeCookies(scopeCookies)
        .withDedupe(dedupeRoutes, dedupeWindow)
        .withTokens(tokenEndpoint, tokenRoutes, tokenTtl);
  }

  /** Whether any route, the keyless guard or the token endpoint is configured. */
  public boolean hasRoutes() {
    return !routes.patterns().isEmpty()
        || !dedupeRoutes.patterns().isEmpty()
        || !tokenRoutes.patterns().isEmpty()
        || tokenEndpoint != null;
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

  /** The route the agent answers with new tokens, or null. */
  public RoutePattern tokenEndpoint() {
    return tokenEndpoint;
  }

  /**
   * Largest response body stored for replay, and largest request body buffered for the fingerprint.
   */
  public long maxBody() {
    return maxBody;
  }

  /** For the startup log: the keyless guard and the tokens, when configured. */
  String describeGuards() {
    StringBuilder out = new StringBuilder();
    if (!dedupeRoutes.patterns().isEmpty()) {
      out.append(" dedupe-routes=").append(dedupeRoutes);
      out.append(" dedupe-window=").append(dedupeWindow.toMillis()).append("ms");
    }
    if (tokenEndpoint != null) {
      out.append(" token-endpoint=").append(tokenEndpoint);
      out.append(" token-routes=").append(tokenRoutes);
      out.append(" token-ttl=").append(tokenTtl.toSeconds()).append("s");
    }
    return out.toString();
  }
}
