package io.hotkey.bootapp;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * Creates orders, as a payment-like endpoint that must not run twice for one retried request; it knows
 * nothing of Idempotency-Key (the agent adds that when {@code hotkey.idempotency.routes=POST /orders}).
 * {@code X-Mode: slow} takes 500 ms, {@code fail} answers 500, {@code throw} throws (Spring and Tomcat turn
 * that into a 500 rendered by {@code /error}). Every run has its own number, so two runs never give the same
 * body; {@code GET /orders/runs} tells how often the handler ran. {@link OrderAuditFilter} wraps these
 * requests.
 */
@RestController
public class OrderController {
    private final AtomicInteger runs = new AtomicInteger();
    private final StringRedisTemplate strings;
    private final OrderAuditFilter audit;

    public OrderController(StringRedisTemplate strings, OrderAuditFilter audit) {
        this.strings = strings;
        this.audit = audit;
    }

    @PostMapping({"/orders", "/orders/checkout", "/orders/pay"})
    public ResponseEntity<Map<String, Object>> create(@RequestBody String payload,
            @RequestHeader(name = "X-Mode", required = false) String mode) throws InterruptedException {
        int run = runs.incrementAndGet();
        if ("slow".equals(mode)) {
            Thread.sleep(500);
        }
        if ("throw".equals(mode)) {
            throw new IllegalStateException("order " + run + " failed on purpose");
        }
        strings.opsForValue().set("order:" + run, payload);
        Map<String, Object> order = new LinkedHashMap<>();
        order.put("order", run);
        order.put("payload", payload);
        order.put("nanos", System.nanoTime());
        return ResponseEntity.status("fail".equals(mode) ? 500 : 201)
                .location(URI.create("/orders/" + run))
                .header(HttpHeaders.SET_COOKIE, "session=" + run)
                .body(order);
    }

    /**
     * The same, answered asynchronously ({@code X-Async: true}): Spring MVC starts async processing, runs the
     * Callable on its task executor and dispatches back to write the answer.
     */
    @PostMapping(path = "/orders", headers = "X-Async=true")
    public Callable<ResponseEntity<Map<String, Object>>> createAsync(@RequestBody String payload,
            @RequestHeader(name = "X-Mode", required = false) String mode) {
        return () -> create(payload, mode);
    }

    @GetMapping("/orders/runs")
    public int runs() {
        return runs.get();
    }

    /** How many POST /orders the audit filter saw with a body the handler had read. */
    @GetMapping("/orders/audited")
    public int audited() {
        return audit.audited();
    }
}
