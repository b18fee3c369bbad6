package io.hotkey.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM that keeps running, started by {@link AgentJvm#start()}: a server that printed {@code
 * PORT n} on stdout once it listened on 127.0.0.1. {@link #close()} stops it (SIGTERM, then
 * SIGKILL); {@link #kill()} kills it at once, as a crash would. Output is kept in memory and under
 * target/it-work/logs/ like any child's.
 */
public final class RunningJvm implements AutoCloseable {
  private final AgentJvm.Launched launched;
  private final int port;
  private ChildRun ended;

  private RunningJvm(AgentJvm.Launched launched, int port) {
    this.launched = launched;
    this.port = port;
  }

  static RunningJvm awaitPort(AgentJvm.Launched launched, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        String line =
            launched.lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (line == null || AgentJvm.Launched.isEnd(line)) {
          break;
        }
        if (line.startsWith("PORT ")) {
          RunningJvm running = new RunningJvm(launched, Integer.parseInt(line.substring(5).trim()));
          System.out.println(
              "[it] "
                  + launched.label
                  + " listening on port "
                  + running.port
                  + " after "
                  + (System.nanoTime() - launched.startNanos) / 1_000_000
                  + "ms, logs "
                  + launched.errFile);
          return running;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    launched.process.destroyForcibly();
    throw new IllegalStateException(
        "child printed no PORT line within "
            + timeout.toSeconds()
            + "s"
            + launched.finish(true, List.of(), null).describe());
  }

  public int port() {
    return port;
  }

  /** {@code http://127.0.0.1:<port>} */
  public String base() {
    return "http://127.0.0.1:" + port;
  }

  public long pid() {
    return launched.process.pid();
  }

  public boolean isAlive() {
    return launched.process.isAlive();
  }

  /** Stdout and stderr so far. */
  public String output() {
    List<String> all = new ArrayList<>();
    synchronized (launched.stdout) {
      all.addAll(launched.stdout);
    }
    synchronized (launched.stderr) {
      all.addAll(launched.stderr);
    }
    return String.join("\n", all);
  }

  /**
   * What the child did so far (or, once stopped, in all): for assertions on [hotkey] lines and
   * their messages.
   */
  public ChildRun snapshot() {
    if (ended != null) {
      return ended;
    }
    return new ChildRun(
        launched.label + " (running)",
        launched.command,
        Integer.MIN_VALUE,
        false,
        Duration.ofNanos(System.nanoTime() - launched.startNanos),
        new ArrayList<>(launched.stdout),
        new ArrayList<>(launched.stderr),
        List.of(),
        launched.outFile,
        launched.errFile,
        null);
  }

  /**
   * Waits until an agent line (from {@code [hotkey] } on) matches {@code regex}: a line the child
   * has written may not have been read from its stderr pipe yet, even when an HTTP answer sent
   * after it has arrived.
   */
  public boolean awaitAgentLine(String regex, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!snapshot().stderrMatches(regex)) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  /** SIGKILL, as a crash: no shutdown hook runs, requests in flight die with it. */
  public ChildRun kill() {
    return end(true);
  }

  @Override
  public void close() {
    end(false);
  }

  private synchronized ChildRun end(boolean forcibly) {
    if (ended == null) {
      Process process = launched.process;
      if (forcibly) {
        process.destroyForcibly();
      } else {
        process.destroy();
        try {
          if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          process.destroyForcibly();
        }
      }
      ended = launched.finish(false, List.of(), null);
      System.out.println("[it] " + ended.summary() + (forcibly ? " (killed)" : " (stopped)"));
    }
    return ended;
  }
}
