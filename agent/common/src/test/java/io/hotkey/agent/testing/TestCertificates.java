package io.hotkey.agent.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A certificate authority and a server certificate it signed for 127.0.0.1 and localhost, made with
 * {@code openssl} in a new directory, and the CA also as a JKS trust store made with {@code
 * keytool}: what a TLS Redis and a client that trusts it need.
 */
public final class TestCertificates {
  private static final String PASSWORD = "changeit";

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
        PASSWORD);
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

  /** A server context with the CA-signed certificate for 127.0.0.1 and localhost. */
  public SSLContext serverContext() throws IOException, InterruptedException {
    Path store = dir.resolve("server.p12");
    if (!Files.exists(store)) {
      run(
          dir,
          "openssl",
          "pkcs12",
          "-export",
          "-in",
          "server.pem",
          "-inkey",
          "server.key",
          "-out",
          "server.p12",
          "-passout",
          "pass:" + PASSWORD);
    }
    try (InputStream in = Files.newInputStream(store)) {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(in, PASSWORD.toCharArray());
      KeyManagerFactory managers =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      managers.init(keys, PASSWORD.toCharArray());
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(managers.getKeyManagers(), null, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot load " + store, e);
    }
  }

  /** A client context that trusts the CA. */
  public SSLContext clientContext() throws IOException {
    try (InputStream in = Files.newInputStream(caTrustStore())) {
      KeyStore trusted = KeyStore.getInstance("JKS");
      trusted.load(in, PASSWORD.toCharArray());
      TrustManagerFactory managers =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      managers.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, managers.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot load " + caTrustStore(), e);
    }
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
