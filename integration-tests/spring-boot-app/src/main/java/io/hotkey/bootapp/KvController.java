package io.hotkey.bootapp;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class KvController {
    private final StringRedisTemplate strings;
    private final RedisTemplate<Object, Object> objects;
    private final RedisConnectionFactory connectionFactory;
    private final PriceService prices;

    public KvController(StringRedisTemplate strings, RedisTemplate<Object, Object> objects,
                        RedisConnectionFactory connectionFactory, PriceService prices) {
        this.strings = strings;
        this.objects = objects;
        this.connectionFactory = connectionFactory;
        this.prices = prices;
    }

    /** Which Redis client Boot wired (LettuceConnectionFactory or JedisConnectionFactory). */
    @GetMapping("/client")
    public String client() {
        return connectionFactory.getClass().getSimpleName();
    }

    @GetMapping("/kv/{key}")
    public ResponseEntity<String> get(@PathVariable("key") String key) {
        String value = strings.opsForValue().get(key);
        return value == null ? ResponseEntity.notFound().build() : ResponseEntity.ok(value);
    }

    @PutMapping("/kv/{key}")
    public String put(@PathVariable("key") String key, @RequestBody String value) {
        strings.opsForValue().set(key, value);
        return "OK";
    }

    /** A hash read through the generic RedisTemplate (JDK-serialized keys and values). */
    @GetMapping("/profile/{id}")
    public Map<String, Object> profile(@PathVariable("id") String id) {
        Map<Object, Object> entries = objects.opsForHash().entries("profile:" + id);
        Map<String, Object> out = new LinkedHashMap<>();
        entries.forEach((k, v) -> out.put(String.valueOf(k), v));
        return out;
    }

    @PutMapping("/profile/{id}/{field}")
    public String putProfile(@PathVariable("id") String id, @PathVariable("field") String field,
                             @RequestBody String value) {
        objects.opsForHash().put("profile:" + id, field, value);
        return "OK";
    }

    /** The @Cacheable price; the answer also says how often the expensive computation ran. */
    @GetMapping("/price/{sku}")
    public String price(@PathVariable("sku") String sku) {
        return prices.price(sku) + " computed=" + prices.computations(sku);
    }

    @PutMapping("/price/{sku}")
    public String reprice(@PathVariable("sku") String sku, @RequestBody String price) {
        return prices.reprice(sku, price);
    }

    @DeleteMapping("/price/{sku}")
    public String evict(@PathVariable("sku") String sku) {
        prices.evict(sku);
        return "OK";
    }
}
