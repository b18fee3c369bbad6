package io.hotkey.demo.flashsale;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The flash sale, on Lettuce: stock per product in {@code stock:<id>} (a string counter), orders in
 * hashes {@code order:<id>} numbered by {@code INCR orders:seq}. Placing an order is one Lua
 * script, so checking the stock, taking it, numbering and recording the order happen atomically:
 * concurrent buyers can never take more than there is, and stock is never taken without an order
 * recorded for it.
 *
 * <p>All callers share one {@link StatefulRedisConnection}, as Lettuce recommends for the sync API.
 */
public final class FlashSale {

  public static final String ORDER_SEQUENCE_KEY = "orders:seq";
  public static final String IDEMPOTENCY_KEY_FIELD = "idempotencyKey";
  public static final int MAX_QUANTITY = 100;

  /*
   * KEYS[1] stock:<product>, KEYS[2] orders:seq; ARGV quantity, order key prefix, product id,
   * idempotency key, created-at millis. Replies {id} on success, {0, stock left} when sold out, {-1} when
   * the product has no stock key. The order hash's name depends on the number INCR hands out, so it cannot
   * be declared in KEYS beforehand (fine on one Redis; Redis Cluster would need a hash tag).
   */
  private static final String PLACE_ORDER =
      """
            local stock = redis.call('GET', KEYS[1])
            if not stock then return {-1} end
            local quantity = tonumber(ARGV[1])
            if tonumber(stock) < quantity then return {0, tonumber(stock)} end
            redis.call('DECRBY', KEYS[1], quantity)
            local id = redis.call('INCR', KEYS[2])
            redis.call('HSET', ARGV[2] .. id, 'id', id, 'productId', ARGV[3], 'quantity', quantity,
                       'idempotencyKey', ARGV[4], 'createdAt', ARGV[5])
            return {id}
            """;

  private final StatefulRedisConnection<String, String> connection;

  public FlashSale(StatefulRedisConnection<String, String> connection) {
    this.connection = connection;
  }

  public static String stockKey(long productId) {
    return "stock:" + productId;
  }

  public static String orderKey(long orderId) {
    return "order:" + orderId;
  }

  /**
   * Puts {@code units} in stock for products {@code firstId..lastId}, overwriting what an earlier
   * run left.
   */
  public void stockUp(long firstId, long lastId, long units) {
    RedisCommands<String, String> redis = connection.sync();
    for (long id = firstId; id <= lastId; id++) {
      redis.set(stockKey(id), Long.toString(units));
    }
  }

  /** Units left of a flash-sale product; empty when the product is not on sale. */
  public OptionalLong stock(long productId) {
    String stock = connection.sync().get(stockKey(productId));
    return stock == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(stock));
  }

  /**
   * Takes {@code quantity} (1..{@value #MAX_QUANTITY}) units and records the order, or changes
   * nothing.
   */
  public PlaceOrderResult placeOrder(long productId, int quantity, String idempotencyKey) {
    if (quantity < 1 || quantity > MAX_QUANTITY) {
      throw new IllegalArgumentException(
          "quantity must be 1.." + MAX_QUANTITY + ", got " + quantity);
    }
    String key = idempotencyKey == null ? "" : idempotencyKey;
    long createdAt = System.currentTimeMillis();
    List<Object> reply =
        connection
            .sync()
            .eval(
                PLACE_ORDER,
                ScriptOutputType.MULTI,
                new String[] {stockKey(productId), ORDER_SEQUENCE_KEY},
                Integer.toString(quantity),
                "order:",
                Long.toString(productId),
                key,
                Long.toString(createdAt));
    long code = (Long) reply.get(0);
    if (code > 0) {
      return new PlaceOrderResult.Created(new Order(code, productId, quantity, key, createdAt));
    }
    if (code == 0) {
      return new PlaceOrderResult.SoldOut(productId, (Long) reply.get(1));
    }
    return new PlaceOrderResult.NotOnSale(productId);
  }

  public Optional<Order> order(long orderId) {
    Map<String, String> fields = connection.sync().hgetall(orderKey(orderId));
    if (fields.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new Order(
            orderId,
            Long.parseLong(fields.get("productId")),
            Integer.parseInt(fields.get("quantity")),
            fields.getOrDefault(IDEMPOTENCY_KEY_FIELD, ""),
            Long.parseLong(fields.getOrDefault("createdAt", "0"))));
  }
}
