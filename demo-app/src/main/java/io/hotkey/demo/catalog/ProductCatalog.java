package io.hotkey.demo.catalog;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.UnifiedJedis;

/**
 * Products in Redis, laid out the way a product page reads them: a hash {@code product:<id>} with
 * name, price and stock, and the review average in its own string {@code product:<id>:rating}
 * (written by a separate review pipeline in a real shop). A page view is one HGETALL and one GET.
 */
public final class ProductCatalog {

  private static final String[] ADJECTIVES = {
    "Wireless",
    "Compact",
    "Organic",
    "Stainless",
    "Smart",
    "Vintage",
    "Ergonomic",
    "Waterproof",
    "Portable",
    "Handmade"
  };
  private static final String[] NOUNS = {
    "Headphones",
    "Coffee Grinder",
    "Backpack",
    "Desk Lamp",
    "Water Bottle",
    "Keyboard",
    "Running Shoes",
    "Tea Set",
    "Phone Case",
    "Blender",
    "Notebook",
    "Sunglasses"
  };
  private static final int SEED_BATCH = 1_000;

  private final UnifiedJedis redis;

  public ProductCatalog(UnifiedJedis redis) {
    this.redis = redis;
  }

  public static String productKey(long id) {
    return "product:" + id;
  }

  public static String ratingKey(long id) {
    return "product:" + id + ":rating";
  }

  public Optional<Product> find(long id) {
    Map<String, String> fields = redis.hgetAll(productKey(id));
    if (fields.isEmpty()) {
      return Optional.empty();
    }
    String rating = redis.get(ratingKey(id));
    return Optional.of(
        new Product(
            id,
            fields.get("name"),
            new BigDecimal(fields.get("price")),
            Integer.parseInt(fields.get("stock")),
            rating == null ? BigDecimal.ZERO : new BigDecimal(rating)));
  }

  /** Sets the price and returns the product as stored afterwards; empty for an unknown product. */
  public Optional<Product> updatePrice(long id, BigDecimal price) {
    // HSET alone would create a half product out of an unknown id. Products are never deleted,
    // so the existence check cannot race with a removal.
    if (!redis.exists(productKey(id))) {
      return Optional.empty();
    }
    redis.hset(productKey(id), "price", price.toPlainString());
    return find(id);
  }

  public boolean redisReachable() {
    return "PONG".equalsIgnoreCase(redis.ping());
  }

  /** Writes products 1..count with deterministic contents, overwriting earlier runs. */
  public void seed(int count) {
    try (AbstractPipeline pipeline = redis.pipelined()) {
      for (long id = 1; id <= count; id++) {
        SplittableRandom random = new SplittableRandom(id);
        String name =
            ADJECTIVES[random.nextInt(ADJECTIVES.length)]
                + " "
                + NOUNS[random.nextInt(NOUNS.length)]
                + " #"
                + id;
        BigDecimal price = BigDecimal.valueOf(random.nextInt(500, 50_000), 2);
        pipeline.hset(
            productKey(id),
            Map.of(
                "name", name,
                "price", price.toPlainString(),
                "stock", Integer.toString(random.nextInt(0, 500))));
        pipeline.set(ratingKey(id), BigDecimal.valueOf(random.nextInt(10, 51), 1).toPlainString());
        if (id % SEED_BATCH == 0) {
          pipeline.sync();
        }
      }
    }
  }
}
