package io.hotkey.agent.instrument.servlet;

import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.idempotency.Decision;
import io.hotkey.agent.idempotency.Execution;
import io.hotkey.agent.idempotency.HttpAnswer;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.idempotency.Outcome;
import io.hotkey.agent.idempotency.ReleaseReason;
import io.hotkey.agent.idempotency.RequestHead;
import io.hotkey.agent.idempotency.Route;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.commons.ClassRemapper;
import net.bytebuddy.jar.asm.commons.Remapper;

/**
 * The seam between servlet containers and the agent. It lives in the system class loader (the agent
 * jar) and speaks only JDK types, so both the advice inlined into container classes ({@link
 * ServletAdvice}) and the helper classes injected into the servlet API's class loader can call it
 * whatever loader they are in.
 *
 * <p>The helpers (the {@code jakarta/} subpackage, renamed for {@code javax}) extend the servlet
 * API's wrapper classes, so they cannot be loaded by the agent's loader: on the first request seen
 * with a given servlet API, their class files are read from the agent jar, renamed into the API's
 * own package ({@code jakarta.servlet.http.HotkeyAgent*}) and defined next to {@code
 * HttpServletRequestWrapper} with a {@link MethodHandles#privateLookupIn private lookup} ({@code
 * Lookup.defineClass}: no {@code sun.misc.Unsafe}, no reflective {@code ClassLoader.defineClass}).
 * Everything that sees the servlet API (the container and every web application) then sees them.
 *
 * <p>Only the outermost {@code Servlet.service}/{@code FilterChain.doFilter} call on a thread acts
 * (a per-thread depth counter); nested filters, servlets and includes pass through.
 */
public final class ServletBridge {
  /** The name the advice links against; a test checks it stays equal to this class's name. */
  public static final String CLASS_NAME = "io.hotkey.agent.instrument.servlet.ServletBridge";

  private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

  /**
   * The advice's call marker for a call that only has to leave the depth counter as it found it.
   */
  private static final Object PLAIN = new Object();

  private static final Helper NONE = new Helper(null, null, null);

  private static volatile IdempotencyEngine engine;
  private static volatile AgentErrors errors = new AgentErrors(0);

  private static final Flavor JAKARTA = new Flavor("jakarta");
  private static final Flavor JAVAX = new Flavor("javax");

  private static final ClassValue<Helper> BY_REQUEST_CLASS =
      new ClassValue<Helper>() {
        @Override
        protected Helper computeValue(Class<?> type) {
          return resolve(type);
        }
      };

  private static final ClassValue<Helper> BY_API =
      new ClassValue<Helper>() {
        @Override
        protected Helper computeValue(Class<?> httpServletRequest) {
          Flavor flavor = httpServletRequest.getName().startsWith("jakarta.") ? JAKARTA : JAVAX;
          try {
            return inject(httpServletRequest, flavor);
          } catch (Throwable t) {
            error(
                "injecting the "
                    + flavor.api
                    + ".servlet helpers into "
                    + httpServletRequest.getClassLoader()
                    + " (requests on its servlets pass through untouched)",
                t);
            return NONE;
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

  /**
   * @return {call, request, response, skip}: call is never null (the exit needs it to keep the
   *     depth counter); request/response are non-null when the advice must swap the method's
   *     arguments; skip is non-null when the answer was written and the method must not run.
   */
  public static Object[] enter(Object request, Object response) {
    Object[] result = new Object[4];
    result[0] = PLAIN;
    int[] depth = DEPTH.get();
    if (depth[0]++ > 0 || engine == null || request == null || response == null) {
      return result;
    }
    try {
      Helper helper = BY_REQUEST_CLASS.get(request.getClass());
      if (helper.enter == null) {
        return result;
      }
      Object[] swap = (Object[]) helper.enter.invokeExact(request, response);
      if (swap != null) {
        result[1] = swap[0];
        result[2] = swap[1];
        result[3] = swap[3];
        if (swap[2] != null) {
          result[0] = new Call(helper, swap[2]);
        }
      }
    } catch (Throwable t) {
      error("entering a request", t);
    }
    return result;
  }

  /** The method returned or threw; {@code call} is what {@link #enter} returned. */
  public static void exit(Object call, Throwable thrown) {
    if (call == null) {
      return;
    }
    DEPTH.get()[0]--;
    if (call instanceof Call) {
      Call active = (Call) call;
      try {
        active.helper.exit.invokeExact(active.state, thrown);
      } catch (Throwable t) {
        error("completing a request", t);
      }
    }
  }

  // ---------------------------------------------------------------- called by the injected helpers

  /**
   * @return the configured route (opaque), or null: not ours
   */
  public static Object route(String method, String path) {
    IdempotencyEngine active = engine;
    return active == null ? null : active.route(method, path);
  }

  /**
   * @return null: pass through (the body, if it was read, must be put back); {status, headers,
   *     body}: write this answer instead of running the handler; {execution}: run the handler and
   *     report its end
   * @throws IOException reading the body failed
   */
  public static Object[] decide(
      Object route,
      String method,
      String path,
      String rawPath,
      String rawQuery,
      Function<String, List<String>> headers,
      Function<Long, byte[]> body)
      throws IOException {
    IdempotencyEngine active = engine;
    if (active == null || !(route instanceof Route)) {
      return null;
    }
    Decision decision;
    try {
      decision =
          active.decide(
              (Route) route,
              new Head(method, path, rawPath, rawQuery, headers),
              limit -> body.apply(limit));
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    if (decision.outcome() == Outcome.PASS) {
      return null;
    }
    HttpAnswer answer = decision.answer();
    if (answer != null) {
      return new Object[] {answer.status(), answer.headers(), answer.body()};
    }
    return new Object[] {decision.execution()};
  }

  public static long maxBody(Object execution) {
    return ((Execution) execution).maxBody();
  }

  public static void finish(
      Object execution,
      int status,
      List<Map.Entry<String, String>> headers,
      byte[] body,
      boolean captured) {
    ((Execution) execution).finish(status, headers, body, captured);
  }

  public static void fail(Object execution, ReleaseReason why) {
    ((Execution) execution).fail(why);
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

  private static Helper resolve(Class<?> requestClass) {
    Class<?> api = findInterface(requestClass, JAKARTA.requestInterface);
    if (api == null) {
      api = findInterface(requestClass, JAVAX.requestInterface);
    }
    return api == null || api.getClassLoader() == null ? NONE : BY_API.get(api);
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
   * Defines the flavor's helpers next to the API's {@code HttpServletRequestWrapper} (once per
   * loader).
   */
  static Helper inject(Class<?> httpServletRequest, Flavor flavor) throws Exception {
    ClassLoader loader = httpServletRequest.getClassLoader();
    Class<?> anchor =
        Class.forName(flavor.api + ".servlet.http.HttpServletRequestWrapper", false, loader);
    MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(anchor, MethodHandles.lookup());
    Class<?> entry;
    synchronized (ServletBridge.class) {
      try {
        entry = Class.forName(flavor.injectedName("Idempotency"), false, anchor.getClassLoader());
      } catch (ClassNotFoundException notYet) {
        entry = null;
        for (String helper : Flavor.HELPERS) {
          Class<?> defined = lookup.defineClass(flavor.renamedBytes(helper));
          if (helper.equals("Idempotency")) {
            entry = defined;
          }
        }
      }
    }
    MethodHandle enter =
        lookup.findStatic(
            entry, "enter", MethodType.methodType(Object[].class, Object.class, Object.class));
    MethodHandle exit =
        lookup.findStatic(
            entry, "exit", MethodType.methodType(void.class, Object.class, Throwable.class));
    return new Helper(entry, enter, exit);
  }

  /**
   * One servlet API and what the helpers are renamed to for it. The helpers are written and
   * compiled once, against {@code jakarta.servlet}; for {@code javax.servlet} the same bytecode is
   * renamed ({@code jakarta/servlet/...} to {@code javax/servlet/...}), which is exact because the
   * two APIs share every name and signature the helpers use.
   */
  static final class Flavor {
    /**
     * Every helper class, none extending another, in definition order: a class the verifier must
     * load to check another (a wrapper stream returned as the API's type) comes before it, and the
     * entry point last, so a half-injected loader never has an entry point.
     */
    static final List<String> HELPERS =
        List.of(
            "BufferedInput",
            "CapturingOutput",
            "CapturingWriter",
            "RequestBody",
            "RequestWrapper",
            "ResponseWrapper",
            "AsyncCompletion",
            "Idempotency");

    static final String PREFIX = "HotkeyAgent";
    static final String SOURCE_PACKAGE = "io/hotkey/agent/instrument/servlet/jakarta/";
    private static final String SOURCE_API = "jakarta/servlet/";

    final String api;
    final String requestInterface;
    final String targetPackage;
    private final String targetApi;

    Flavor(String api) {
      this.api = api;
      this.requestInterface = api + ".servlet.http.HttpServletRequest";
      this.targetPackage = api + "/servlet/http/";
      this.targetApi = api + "/servlet/";
    }

    String injectedName(String helper) {
      return (targetPackage + PREFIX + helper).replace('/', '.');
    }

    byte[] renamedBytes(String helper) throws IOException {
      String resource = SOURCE_PACKAGE + helper + ".class";
      byte[] original;
      try (InputStream in =
          ServletBridge.class.getClassLoader() == null
              ? ClassLoader.getSystemResourceAsStream(resource)
              : ServletBridge.class.getClassLoader().getResourceAsStream(resource)) {
        if (in == null) {
          throw new IOException("agent class file not found: " + resource);
        }
        original = in.readAllBytes();
      }
      ClassReader reader = new ClassReader(original);
      ClassWriter writer = new ClassWriter(0);
      reader.accept(
          new ClassRemapper(
              writer,
              new Remapper() {
                @Override
                public String map(String internalName) {
                  if (internalName.startsWith(SOURCE_PACKAGE)) {
                    return targetPackage + PREFIX + internalName.substring(SOURCE_PACKAGE.length());
                  }
                  if (internalName.startsWith(SOURCE_API)) {
                    return targetApi + internalName.substring(SOURCE_API.length());
                  }
                  return internalName;
                }
              }),
          0);
      return writer.toByteArray();
    }
  }

  private static final class Helper {
    final Class<?> entry;
    final MethodHandle enter;
    final MethodHandle exit;

    Helper(Class<?> entry, MethodHandle enter, MethodHandle exit) {
      this.entry = entry;
      this.enter = enter;
      this.exit = exit;
    }
  }

  private static final class Call {
    final Helper helper;
    final Object state;

    Call(Helper helper, Object state) {
      this.helper = helper;
      this.state = state;
    }
  }

  private static final class Head implements RequestHead {
    private final String method;
    private final String path;
    private final String rawPath;
    private final String rawQuery;
    private final Function<String, List<String>> headers;

    Head(
        String method,
        String path,
        String rawPath,
        String rawQuery,
        Function<String, List<String>> headers) {
      this.method = method;
      this.path = path;
      this.rawPath = rawPath;
      this.rawQuery = rawQuery;
      this.headers = headers;
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
      return rawQuery;
    }

    @Override
    public List<String> headerValues(String name) {
      List<String> values = headers.apply(name);
      return values == null ? List.of() : values;
    }
  }
}
