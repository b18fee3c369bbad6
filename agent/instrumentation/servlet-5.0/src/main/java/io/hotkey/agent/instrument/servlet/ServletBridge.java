package io.hotkey.agent.instrument.servlet;

import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.instrument.HelperClasses;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The seam between servlet containers and the agent. It lives in the system class loader (the agent
 * jar), so both the advice inlined into container classes ({@link ServletAdvice}) and the helper
 * classes injected next to the servlet API can call it whatever loader they are in.
 *
 * <p>The helpers (the {@code jakarta/} subpackage, renamed for {@code javax}) extend the servlet
 * API's wrapper classes, so they cannot be loaded by the agent's loader: on the first request seen
 * with a given servlet API, they are defined next to its {@code HttpServletRequestWrapper} ({@link
 * HelperClasses}, as {@code jakarta.servlet.http.HotkeyAgent*}). Everything that sees the servlet
 * API (the container and every web application) then sees them; they see the agent's classes, and
 * speak to it in its own types ({@link ServletCall}, and the engine's {@code RequestHead} and
 * {@code Decision}).
 *
 * <p>Only the outermost {@code Servlet.service}/{@code FilterChain.doFilter} call on a thread acts
 * (a per-thread depth counter); nested filters, servlets and includes pass through.
 */
public final class ServletBridge {
  /** The name the advice links against; a test checks it stays equal to this class's name. */
  public static final String CLASS_NAME = "io.hotkey.agent.instrument.servlet.ServletBridge";

  /**
   * Every helper class, in definition order: a class the verifier must load to check another (a
   * wrapper stream returned as the API's type) comes before it, and the entry point last.
   */
  static final List<String> HELPERS =
      List.of(
          "BufferedInput",
          "CapturingOutput",
          "CapturingWriter",
          "RequestBody",
          "ServletRequestHead",
          "RequestWrapper",
          "ResponseWrapper",
          "AsyncCompletion",
          "Idempotency");

  static final String HELPER_PACKAGE = "io/hotkey/agent/instrument/servlet/jakarta/";
  private static final String HELPER_API = "jakarta/servlet/";

  private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

  private static volatile IdempotencyEngine engine;
  private static volatile AgentErrors errors = new AgentErrors(0);

  private static final ClassValue<Optional<ServletApiHelper>> BY_REQUEST_CLASS =
      new ClassValue<Optional<ServletApiHelper>>() {
        @Override
        protected Optional<ServletApiHelper> computeValue(Class<?> type) {
          return resolve(type);
        }
      };

  private static final ClassValue<Optional<ServletApiHelper>> BY_API =
      new ClassValue<Optional<ServletApiHelper>>() {
        @Override
        protected Optional<ServletApiHelper> computeValue(Class<?> httpServletRequest) {
          ServletApi api = ServletApi.of(httpServletRequest);
          try {
            return Optional.of(
                (ServletApiHelper)
                    api.helpers
                        .injectInto(httpServletRequest.getClassLoader())
                        .getDeclaredConstructor()
                        .newInstance());
          } catch (Throwable t) {
            error(
                "injecting the "
                    + api.name
                    + ".servlet helpers into "
                    + httpServletRequest.getClassLoader()
                    + " (requests on its servlets pass through untouched)",
                t);
            return Optional.empty();
          }
        }
      };

  private ServletBridge() {}

  /** Makes every instrumented servlet container use this engine. */
  public static void activate(IdempotencyEngine active, AgentErrors agentErrors) {
    errors = agentErrors;
    engine = active;
  }

  /** Instrumented containers pass everything through from now on. */
  public static void deactivate() {
    engine = null;
  }

  // ---------------------------------------------------------------- called by the inlined advice

  /** Returns what the call does; never null, as the exit needs it to keep the depth counter. */
  public static ServletCall enter(Object request, Object response) {
    int[] depth = DEPTH.get();
    if (depth[0]++ > 0 || engine == null || request == null || response == null) {
      return ServletCall.asIs();
    }
    try {
      Optional<ServletApiHelper> helper = BY_REQUEST_CLASS.get(request.getClass());
      return helper.isPresent() ? helper.get().enter(request, response) : ServletCall.asIs();
    } catch (Throwable t) {
      error("entering a request", t);
      return ServletCall.asIs();
    }
  }

  /** The method returned or threw; {@code call} is what {@link #enter} returned. */
  public static void exit(ServletCall call, Throwable thrown) {
    if (call == null) {
      return;
    }
    DEPTH.get()[0]--;
    try {
      call.returned(thrown);
    } catch (Throwable t) {
      error("completing a request", t);
    }
  }

  // ---------------------------------------------------------------- called by the injected helpers

  /**
   * Returns the engine requests are decided by, or null once the agent is deactivated (they then
   * pass through).
   */
  public static IdempotencyEngine engine() {
    return engine;
  }

  public static void error(String where, Throwable error) {
    errors.record("servlet idempotency " + where, error);
  }

  /**
   * The request URI as the route table sees it: path parameters ({@code ;jsessionid=...}) removed
   * and percent-escapes decoded as UTF-8 ({@code +} stays a plus in a path).
   */
  public static String decodePath(String rawPath) {
    if (rawPath == null || rawPath.isEmpty()) {
      return "/";
    }
    StringBuilder plain = new StringBuilder(rawPath.length());
    boolean inParameter = false;
    for (int i = 0; i < rawPath.length(); i++) {
      char c = rawPath.charAt(i);
      if (c == '/') {
        inParameter = false;
      } else if (c == ';') {
        inParameter = true;
      }
      if (!inParameter) {
        plain.append(c);
      }
    }
    if (plain.indexOf("%") < 0) {
      return plain.toString();
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(plain.length());
    for (int i = 0; i < plain.length(); i++) {
      char c = plain.charAt(i);
      if (c == '%'
          && i + 2 < plain.length()
          && Character.digit(plain.charAt(i + 1), 16) >= 0
          && Character.digit(plain.charAt(i + 2), 16) >= 0) {
        bytes.write(
            Character.digit(plain.charAt(i + 1), 16) * 16
                + Character.digit(plain.charAt(i + 2), 16));
        i += 2;
      } else {
        byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        bytes.write(encoded, 0, encoded.length);
      }
    }
    return new String(bytes.toByteArray(), StandardCharsets.UTF_8);
  }

  // ---------------------------------------------------------------- helper injection

  private static Optional<ServletApiHelper> resolve(Class<?> requestClass) {
    for (ServletApi api : ServletApi.values()) {
      Class<?> found = findInterface(requestClass, api.requestInterface);
      if (found != null) {
        return found.getClassLoader() == null ? Optional.empty() : BY_API.get(found);
      }
    }
    return Optional.empty();
  }

  private static Class<?> findInterface(Class<?> type, String name) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().equals(name)) {
        return c;
      }
      for (Class<?> implemented : c.getInterfaces()) {
        Class<?> found = findInterface(implemented, name);
        if (found != null) {
          return found;
        }
      }
    }
    return null;
  }

  /**
   * One servlet API and its helpers. The helpers are written and compiled once, against {@code
   * jakarta.servlet}; for {@code javax.servlet} the same bytecode is renamed ({@code
   * jakarta/servlet/...} to {@code javax/servlet/...}), which is exact because the two APIs share
   * every name and signature the helpers use.
   */
  enum ServletApi {
    JAKARTA("jakarta"),
    JAVAX("javax");

    final String name;
    final String requestInterface;

    @SuppressWarnings("ImmutableEnumChecker") // its only state, where it defined helpers, is locked
    final HelperClasses helpers;

    ServletApi(String name) {
      this.name = name;
      this.requestInterface = name + ".servlet.http.HttpServletRequest";
      String targetApi = name + "/servlet/";
      this.helpers =
          new HelperClasses(
              name + ".servlet.http.HttpServletRequestWrapper",
              HELPER_PACKAGE,
              HELPERS,
              internalName ->
                  internalName.startsWith(HELPER_API)
                      ? targetApi + internalName.substring(HELPER_API.length())
                      : internalName);
    }

    static ServletApi of(Class<?> httpServletRequest) {
      return httpServletRequest.getName().startsWith("jakarta.") ? JAKARTA : JAVAX;
    }
  }
}
