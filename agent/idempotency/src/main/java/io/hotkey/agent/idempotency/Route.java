package io.hotkey.agent.idempotency;

import io.hotkey.config.RoutePattern;

/**
 * The rules that apply to one request, found by {@link IdempotencyEngine#route}: the agent's token
 * endpoint, a route that requires a token, or a route where a key is honoured ({@code routes}) and
 * a keyless request deduplicated ({@code dedupe-routes}). A request may fall under a pattern of
 * each table; the token endpoint comes first, then the token requirement.
 */
public final class Route {
  final boolean tokenEndpoint;
  final RoutePattern token;
  final RoutePattern keyed;
  final RoutePattern dedupe;

  private Route(
      boolean tokenEndpoint, RoutePattern token, RoutePattern keyed, RoutePattern dedupe) {
    this.tokenEndpoint = tokenEndpoint;
    this.token = token;
    this.keyed = keyed;
    this.dedupe = dedupe;
  }

  static Route tokenEndpoint() {
    return new Route(true, null, null, null);
  }

  /** Returns the route, or null when no pattern matched. */
  static Route of(RoutePattern token, RoutePattern keyed, RoutePattern dedupe) {
    return token == null && keyed == null && dedupe == null
        ? null
        : new Route(false, token, keyed, dedupe);
  }

  /** The pattern a key's record is filed under: the key route's, else the dedupe route's. */
  RoutePattern keyPattern() {
    return keyed != null ? keyed : dedupe;
  }

  @Override
  public String toString() {
    if (tokenEndpoint) {
      return "token endpoint";
    }
    return (token != null ? "token route " + token + " " : "")
        + (keyed != null ? "key route " + keyed + " " : "")
        + (dedupe != null ? "dedupe route " + dedupe : "");
  }
}
