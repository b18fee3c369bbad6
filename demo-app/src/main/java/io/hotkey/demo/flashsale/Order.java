package io.hotkey.demo.flashsale;

import io.hotkey.demo.catalog.Json;

/**
 * An order as stored in the hash {@code order:<id>} and returned by the API. {@code idempotencyKey}
 * is the request's {@code Idempotency-Key} header ("" when it had none): the demo stores it so that
 * anyone can check afterwards that no key created two orders.
 */
public record Order(
    long id, long productId, int quantity, String idempotencyKey, long createdAtMillis) {

  public String toJson() {
    return "{\"id\":"
        + id
        + ",\"productId\":"
        + productId
        + ",\"quantity\":"
        + quantity
        + ",\"status\":\"CREATED\""
        + ",\"idempotencyKey\":"
        + Json.quote(idempotencyKey)
        + ",\"createdAt\":"
        + createdAtMillis
        + "}";
  }
}
