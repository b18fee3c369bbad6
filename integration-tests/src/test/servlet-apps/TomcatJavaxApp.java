import io.hotkey.it.app.Child;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/**
 * ServletIdempotencyIT's child application on embedded Tomcat (javax): compiled by the test against the
 * container it runs on, with no knowledge of the agent. POST /orders creates an "order"; GET /runs tells how
 * often the handler ran, GET /outcomes the agent's JMX IdempotencyOutcomes; any other path is 404. Prints "PORT n" once it listens.
 */
public class TomcatJavaxApp {
  static final AtomicInteger RUNS = new AtomicInteger();

  public static class Orders extends HttpServlet {
    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
      response.setContentType("text/plain");
      response.getWriter().print(request.getServletPath().equals("/outcomes") ? Child.idempotencyOutcomes()
          : String.valueOf(RUNS.get()));
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws ServletException, IOException {
      String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int run = RUNS.incrementAndGet();
      String mode = String.valueOf(request.getHeader("X-Mode"));
      if (mode.equals("slow")) {
        try {
          Thread.sleep(500);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (mode.equals("throw")) {
        throw new ServletException("handler failed on purpose");
      }
      byte[] json = ("{\"order\":" + run + ",\"body\":\"" + body + "\",\"nanos\":" + System.nanoTime() + "}")
          .getBytes(StandardCharsets.UTF_8);
      response.setStatus(mode.equals("fail") ? 500 : 201);
      response.setContentType("application/json");
      response.addHeader("Set-Cookie", "session=" + run);
      response.addHeader("Location", "/orders/" + run);
      response.setContentLength(json.length);
      response.getOutputStream().write(json);
    }
  }

  public static class NotFound extends HttpServlet {
    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
      response.sendError(404);
    }
  }

  public static void main(String[] args) throws Exception {
    Tomcat tomcat = new Tomcat();
    String base = Files.createTempDirectory("servlet-it-tomcat").toString();
    tomcat.setBaseDir(base);
    Connector connector = new Connector();
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    connector.setProperty("maxThreads", "250");
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", base);
    Tomcat.addServlet(context, "orders", new Orders());
    context.addServletMappingDecoded("/orders/*", "orders");
    context.addServletMappingDecoded("/runs", "orders");
    context.addServletMappingDecoded("/outcomes", "orders");
    // the default servlet of most applications: every other path reaches the container's servlets
    // (and so the agent's token endpoint), and answers 404
    Tomcat.addServlet(context, "not-found", new NotFound());
    context.addServletMappingDecoded("/", "not-found");
    tomcat.start();
    System.out.println("PORT " + connector.getLocalPort());
    System.out.flush();
    tomcat.getServer().await();
  }
}
