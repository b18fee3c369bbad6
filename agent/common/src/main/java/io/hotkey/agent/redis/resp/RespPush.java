package io.hotkey.agent.redis.resp;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A RESP3 push message ({@code >}): sent by the server on its own, e.g. {@code invalidate} of
 * client tracking.
 */
public final class RespPush {
  private final List<Object> items;

  RespPush(List<Object> items) {
    this.items = items == null ? List.of() : items;
  }

  /** The message kind, its first element (e.g. {@code invalidate}), or "" if it has none. */
  public String kind() {
    return items.isEmpty() || !(items.get(0) instanceof byte[])
        ? ""
        : new String((byte[]) items.get(0), StandardCharsets.UTF_8);
  }

  public List<Object> items() {
    return items;
  }

  @Override
  public String toString() {
    return ">" + kind() + "(" + (items.size() - 1) + ")";
  }
}
