package io.hotkey.demo.catalog;

import java.math.BigDecimal;

/** A catalogue entry as the API returns it. */
public record Product(long id, String name, BigDecimal price, int stock, BigDecimal rating) {

  public String toJson() {
    return "{\"id\":"
        + id
        + ",\"name\":"
        + Json.quote(name)
        + ",\"price\":"
        + price.toPlainString()
        + ",\"stock\":"
        + stock
        + ",\"rating\":"
        + rating.toPlainString()
        + "}";
  }
}
