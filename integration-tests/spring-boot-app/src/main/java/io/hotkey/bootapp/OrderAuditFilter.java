package io.hotkey.bootapp;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingRequestWrapper;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * An audit filter as applications write them: POST /orders runs with Spring's
 * {@link ContentCachingRequestWrapper}, and the requests whose body the application read through it are
 * counted, whether the handler returned or threw ({@code GET /orders/audited}). With
 * {@code X-Buffered: true} the response is also buffered in a {@link ContentCachingResponseWrapper} and
 * copied out after the chain with a Content-Length, as {@code ShallowEtagHeaderFilter} does; otherwise
 * Spring streams it (chunked). A request that went async gets the application's own listener, which takes
 * {@value #COMPLETION_MILLIS} ms at the end of the async cycle and on an error (as logging or metrics listeners
 * may): the container sends the answer before it runs the listeners, so whatever the agent settles only then
 * is settled after the client has the answer.
 */
@Component
public class OrderAuditFilter extends OncePerRequestFilter {
    static final long COMPLETION_MILLIS = 150;

    private static final int BODY_CACHE_LIMIT = 1 << 20;

    private final AtomicInteger audited = new AtomicInteger();

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !("POST".equals(request.getMethod()) && "/orders".equals(request.getRequestURI()));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        // the limit is given, as Spring 7 (Boot 4) requires; no order body comes near it
        ContentCachingRequestWrapper cachingRequest = new ContentCachingRequestWrapper(request, BODY_CACHE_LIMIT);
        try {
            if (!"true".equals(request.getHeader("X-Buffered"))) {
                chain.doFilter(cachingRequest, response);
                if (request.isAsyncStarted()) {
                    request.getAsyncContext().addListener(new SlowCompletion());
                }
                return;
            }
            ContentCachingResponseWrapper cachingResponse = new ContentCachingResponseWrapper(response);
            chain.doFilter(cachingRequest, cachingResponse);
            cachingResponse.copyBodyToResponse();
        } finally {
            if (cachingRequest.getContentAsByteArray().length > 0) {
                audited.incrementAndGet();
            }
        }
    }

    public int audited() {
        return audited.get();
    }

    private static final class SlowCompletion implements AsyncListener {
        @Override
        public void onComplete(AsyncEvent event) {
            pause();
        }

        @Override
        public void onTimeout(AsyncEvent event) {
        }

        @Override
        public void onError(AsyncEvent event) {
            pause();
        }

        private static void pause() {
            try {
                Thread.sleep(COMPLETION_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
        }
    }
}
