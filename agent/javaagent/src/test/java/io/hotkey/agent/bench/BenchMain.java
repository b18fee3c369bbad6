package io.hotkey.agent.bench;

/**
 * Runs JMH from the test classpath, e.g.
 *
 * <pre>
 * mvn -q -pl agent -am -DskipTests test-compile exec:java -Dexec.skip \
 *     -Dexec.mainClass=io.hotkey.agent.bench.BenchMain -Dexec.classpathScope=test \
 *     -Dexec.args="DetectorBenchmark -f 1 -wi 3 -i 5"
 * </pre>
 *
 * exec:java runs in Maven's own JVM with a class loader of its own, so {@code java.class.path}
 * there is Maven's launcher, not the test classpath; forked benchmark JVMs would not find the
 * classes. So, unless {@code -jvm}/{@code -jvmArgs...} options say otherwise, this sets {@code
 * java.class.path} from the context class loader's URLs first (JMH's fork builds its command line
 * from that property).
 */
public final class BenchMain {

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    ClassLoader cl = Thread.currentThread().getContextClassLoader();
    if (cl instanceof java.net.URLClassLoader uRLClassLoader) {
      StringBuilder cp = new StringBuilder();
      for (java.net.URL url : uRLClassLoader.getURLs()) {
        if (cp.length() > 0) {
          cp.append(java.io.File.pathSeparatorChar);
        }
        cp.append(new java.io.File(url.toURI()).getPath());
      }
      if (cp.length() > 0) {
        System.setProperty("java.class.path", cp.toString());
      }
    }
    org.openjdk.jmh.Main.main(args);
  }
}
