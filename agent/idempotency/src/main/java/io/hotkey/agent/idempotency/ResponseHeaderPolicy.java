package io.hotkey.agent.idempotency;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which response headers are stored and replayed: an allow-list of representation and caching
 * headers. Everything else is dropped, in particular {@code Set-Cookie}/{@code Set-Cookie2} (a
 * session must never be handed to a replayed caller), {@code Authorization}/{@code
 * WWW-Authenticate}, hop-by-hop headers ({@code Connection}, {@code Keep-Alive}, {@code
 * Transfer-Encoding}, {@code TE}, {@code Trailer}, {@code Upgrade}, {@code Proxy-*}), framing that
 * the server recomputes ({@code Content-Length}, {@code Date}) and any application-specific header
 * (e.g. a request id, which belongs to the first request only). An allow-list is used rather than a
 * deny-list so that a new credential-carrying header is never replayed by accident.
 */
public final class ResponseHeaderPolicy {
  private static final Set<String> ALLOWED = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);

  static {
    ALLOWED.addAll(
        List.of(
            "content-type",
            "content-language",
            "content-location",
            "content-disposition",
            "content-encoding",
            "location",
            "cache-control",
            "expires",
            "etag",
            "last-modified",
            "vary",
            "link",
            "preference-applied"));
  }

  private ResponseHeaderPolicy() {}

  public static boolean isReplayable(String name) {
    return name != null && ALLOWED.contains(name);
  }

  public static List<Map.Entry<String, String>> filter(List<Map.Entry<String, String>> headers) {
    List<Map.Entry<String, String>> kept = new ArrayList<>();
    for (Map.Entry<String, String> header : headers) {
      if (isReplayable(header.getKey()) && header.getValue() != null) {
        kept.add(Map.entry(header.getKey(), header.getValue()));
      }
    }
    return kept;
  }
}
