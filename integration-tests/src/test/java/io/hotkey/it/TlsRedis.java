package io.hotkey.it;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A local Redis that speaks TLS on a port of its own, presenting a self-signed certificate that
 * names {@code localhost} only (made by {@code openssl}), and plain on {@link RedisServer#port()}
 * for the test's own connections. A client trusts it by trusting {@link #certificate()} (a PEM
 * file).
 */
final class TlsRedis implements AutoCloseable {
  final RedisServer server;
  final int tlsPort;
  private final Path certificate;

  private TlsRedis(RedisServer server, int tlsPort, Path certificate) {
    this.server = server;
    this.tlsPort = tlsPort;
    this.certificate = certificate;
  }

  static TlsRedis start(String label) throws Exception {
    Path dir = Files.createDirectories(ItConfig.workDir().resolve("tls").resolve(label));
    Path certificate = dir.resolve("localhost.pem");
    Path key = dir.resolve("localhost.key");
    Process openssl =
        new ProcessBuilder(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=localhost",
                "-addext",
                "subjectAltName=DNS:localhost",
                "-keyout",
                key.toString(),
                "-out",
                certificate.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!openssl.waitFor(60, TimeUnit.SECONDS) || openssl.exitValue() != 0) {
      throw new IllegalStateException("openssl could not make a certificate: " + output);
    }
    int tlsPort = RedisServers.freePort();
    RedisServer server =
        RedisServers.startLocal(
            label,
            List.of(
                "--tls-port", Integer.toString(tlsPort),
                "--tls-cert-file", certificate.toString(),
                "--tls-key-file", key.toString(),
                "--tls-ca-cert-file", certificate.toString(),
                "--tls-auth-clients", "no"));
    return new TlsRedis(server, tlsPort, certificate);
  }

  Path certificate() {
    return certificate;
  }

  @Override
  public void close() {
    server.close();
  }
}
