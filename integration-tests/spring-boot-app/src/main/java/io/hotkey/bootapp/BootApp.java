package io.hotkey.bootapp;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;

/**
 * An ordinary Spring Boot web service on Redis, as users write them: {@code StringRedisTemplate} reads and
 * writes behind REST endpoints, a {@code @Cacheable} service on Boot's Redis cache manager, actuator with
 * Prometheus, and an order endpoint that must not run twice for one retried request. It knows nothing of the
 * hotkey agent. SpringBootIT and SpringBootIdempotencyIT run it as an executable fat jar with
 * {@code -javaagent:}.
 */
@SpringBootApplication
@EnableCaching
public class BootApp {
    public static void main(String[] args) {
        SpringApplication.run(BootApp.class, args);
    }
}
