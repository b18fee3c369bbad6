package io.hotkey.agent.instrument.jdkhttp;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpContext;
import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import java.util.List;

/**
 * The bridge between the JDK server (whose classes live in the platform loader and cannot link
 * agent types) and the agent: {@link CreateContextAdvice} finds this class through the system class
 * loader by name and calls {@link #attach(Object)} reflectively with every new {@code HttpContext}.
 */
public final class IdempotencyFilters {
  /** The name the advice loads; a test checks it stays equal to this class's name. */
  public static final String CLASS_NAME = "io.hotkey.agent.instrument.jdkhttp.IdempotencyFilters";

  private static volatile IdempotencyEngine engine;
  private static volatile AgentErrors errors = new AgentErrors(0);

  private IdempotencyFilters() {}

  /** Makes every attached filter (present and future) use this engine. */
  public static void activate(IdempotencyEngine active, AgentErrors agentErrors) {
    errors = agentErrors;
    engine = active;
  }

  /** Attached filters pass everything through from now on. */
  public static void deactivate() {
    engine = null;
  }

  static IdempotencyEngine engine() {
    return engine;
  }

  static void recordError(String where, Throwable error) {
    errors.record("jdk-httpserver idempotency " + where, error);
  }

  /**
   * Puts the idempotency filter at the front of the context's filters (once; a context that already
   * has one is left alone). Never throws: the application's {@code createContext} must not fail
   * because of us.
   */
  public static void attach(Object context) {
    try {
      if (engine == null || !(context instanceof HttpContext)) {
        return;
      }
      List<Filter> filters = ((HttpContext) context).getFilters();
      for (Filter filter : filters) {
        if (filter instanceof IdempotencyFilter) {
          return;
        }
      }
      filters.add(0, new IdempotencyFilter());
    } catch (Throwable t) {
      recordError("attaching to a context", t);
    }
  }
}
