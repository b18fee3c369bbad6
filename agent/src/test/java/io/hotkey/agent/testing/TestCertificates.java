package io.hotkey.agent.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority and a server certificate it signed for 127.0.0.1 and localhost, made with
 * {@code openssl} in a new directory, and the CA also as a JKS trust store made with {@code
 * keytool}: what a TLS Redis and a client that trusts it need.
 */
public final class TestCertificates {
  private final Path dir;

  private TestCertificates(Path dir) {
    this.dir = dir;
  }

  public static TestCertificates create() throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("hotkey-tls");
    Files.writeString(
        dir.resolve("server.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
        StandardCharsets.US_ASCII);
    run(
        dir,
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=hotkey-test-ca",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem");
    run(
        dir,
        "openssl",
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "server.key",
        "-out",
        "server.csr");
    run(
        dir,
        "openssl",
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "server.ext",
        "-out",
        "server.pem");
    run(
        dir,
        "keytool",
        "-importcert",
        "-noprompt",
        "-alias",
        "hotkey-test-ca",
        "-file",
        "ca.pem",
        "-keystore",
        "ca.jks",
        "-storetype",
        "JKS",
        "-storepass",
        "changeit");
    return new TestCertificates(dir);
  }

  public Path caCertificate() {
    return dir.resolve("ca.pem");
  }

  /** The CA in a JKS store (readable without its password, as trust stores are). */
  public Path caTrustStore() {
    return dir.resolve("ca.jks");
  }

  public Path serverCertificate() {
    return dir.resolve("server.pem");
  }

  public Path serverKey() {
    return dir.resolve("server.key");
  }

  private static void run(Path dir, String... command) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(List.of(command))
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + output);
    }
  }
}
