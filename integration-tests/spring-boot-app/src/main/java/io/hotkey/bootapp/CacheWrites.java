package io.hotkey.bootapp;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Collections;
import java.util.function.Consumer;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Boot's Redis cache manager (cache "prices", {@code spring.cache.redis.time-to-live}), with cache writes that
 * return once Redis has applied them. On Lettuce, Spring Data Redis 4 writes asynchronously by default: a
 * {@code @CachePut} or {@code @CacheEvict} returns before its SET or DEL is even answered, so the next request may
 * read the previous value, with or without the agent. SpringBootIT checks that a write which returned is seen by
 * the next request, so the app asks for immediate writes where Spring Data Redis has them (4.0's
 * {@code RedisCacheWriterConfigurer.immediateWrites()}, looked up by name because this source also builds on
 * Boot 2.7 and 3.5, whose cache writes are synchronous anyway).
 */
@Configuration
class CacheWrites {
    @Bean
    RedisCacheManager cacheManager(
            RedisConnectionFactory connections, @Value("${spring.cache.redis.time-to-live}") Duration ttl) {
        return RedisCacheManager.builder(immediateWriter(connections))
                .cacheDefaults(RedisCacheConfiguration.defaultCacheConfig().entryTtl(ttl))
                .initialCacheNames(Collections.singleton("prices"))
                .build();
    }

    static RedisCacheWriter immediateWriter(RedisConnectionFactory connections) {
        Method create;
        Method immediateWrites;
        try {
            create = RedisCacheWriter.class.getMethod("create", RedisConnectionFactory.class, Consumer.class);
            immediateWrites = Class.forName(RedisCacheWriter.class.getName() + "$RedisCacheWriterConfigurer")
                    .getMethod("immediateWrites");
        } catch (ReflectiveOperationException writesAreSynchronous) {
            return RedisCacheWriter.nonLockingRedisCacheWriter(connections);
        }
        Consumer<Object> immediate = configurer -> {
            try {
                immediateWrites.invoke(configurer);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        };
        try {
            return (RedisCacheWriter) create.invoke(null, connections, immediate);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
