import io.hotkey.it.app.Child;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * ServletIdempotencyIT's child application on embedded Jetty 12 (ee10, jakarta): compiled by the test against the
 * container it runs on, with no knowledge of the agent. POST /orders creates an "order"; GET /runs tells how
 * often the handler ran, GET /outcomes the agent's JMX IdempotencyOutcomes. Prints "PORT n" once it listens.
 */
public class JettyApp {
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

  public static void main(String[] args) throws Exception {
    QueuedThreadPool threads = new QueuedThreadPool(250, 8);
    Server server = new Server(threads);
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    connector.setAcceptQueueSize(256);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler("/");
    context.addServlet(new ServletHolder(new Orders()), "/orders/*");
    context.addServlet(new ServletHolder(new Orders()), "/runs");
    context.addServlet(new ServletHolder(new Orders()), "/outcomes");
    server.setHandler(context);
    server.start();
    System.out.println("PORT " + connector.getLocalPort());
    System.out.flush();
    server.join();
  }
}
