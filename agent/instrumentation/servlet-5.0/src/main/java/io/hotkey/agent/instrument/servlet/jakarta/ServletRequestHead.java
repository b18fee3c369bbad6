package io.hotkey.agent.instrument.servlet.jakarta;

import io.hotkey.agent.idempotency.RequestHead;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;

/** A servlet request as the idempotency engine sees it before its body. */
public final class ServletRequestHead implements RequestHead {
  private final HttpServletRequest request;
  private final String method;
  private final String path;
  private final String rawPath;

  ServletRequestHead(HttpServletRequest request, String method, String path, String rawPath) {
    this.request = request;
    this.method = method;
    this.path = path;
    this.rawPath = rawPath;
  }

  @Override
  public String method() {
    return method;
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public String rawPath() {
    return rawPath;
  }

  @Override
  public String rawQuery() {
    return request.getQueryString();
  }

  @Override
  public List<String> headerValues(String name) {
    Enumeration<String> values = request.getHeaders(name);
    List<String> list = new ArrayList<>(1);
    while (values != null && values.hasMoreElements()) {
      list.add(values.nextElement());
    }
    return list;
  }

  @Override
  public String principal() {
    Principal principal = request.getUserPrincipal();
    return principal == null ? null : principal.getName();
  }
}
