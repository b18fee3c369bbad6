package io.hotkey.bootapp;

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
 * Spring streams it (chunked).
 */
@Component
public class OrderAuditFilter extends OncePerRequestFilter {
    private final AtomicInteger audited = new AtomicInteger();

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !("POST".equals(request.getMethod()) && "/orders".equals(request.getRequestURI()));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        ContentCachingRequestWrapper cachingRequest = new ContentCachingRequestWrapper(request);
        try {
            if (!"true".equals(request.getHeader("X-Buffered"))) {
                chain.doFilter(cachingRequest, response);
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
}
