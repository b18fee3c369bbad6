package io.hotkey.bootapp;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.CachePut;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/** Prices cached in Redis by Boot's RedisCacheManager (cache "prices", entries "prices::<sku>"). */
@Service
public class PriceService {
    private final StringRedisTemplate strings;
    private final Map<String, AtomicInteger> computations = new ConcurrentHashMap<>();

    public PriceService(StringRedisTemplate strings) {
        this.strings = strings;
    }

    /** The "expensive" computation: the base price from Redis, times 2. Runs only on a cache miss. */
    @Cacheable("prices")
    public String price(String sku) {
        computations.computeIfAbsent(sku, s -> new AtomicInteger()).incrementAndGet();
        String base = strings.opsForValue().get("base:" + sku);
        return base == null ? "none" : "price=" + (Long.parseLong(base) * 2);
    }

    @CachePut(cacheNames = "prices", key = "#sku")
    public String reprice(String sku, String price) {
        return "price=" + price;
    }

    @CacheEvict(cacheNames = "prices", key = "#sku")
    public void evict(String sku) {
    }

    public int computations(String sku) {
        AtomicInteger n = computations.get(sku);
        return n == null ? 0 : n.get();
    }
}
