package io.hotkey.agent.redis.resp;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS sockets that trust the certificates of one file: PEM or DER X.509 certificates (the CA file a
 * Redis server's {@code tls-ca-cert-file} names), or a JKS or PKCS12 trust store readable without a
 * password.
 */
public final class TrustStores {
  private TrustStores() {}

  /**
   * A socket factory trusting the certificates of a PEM file or a key store.
   *
   * @throws IOException when the file cannot be read, is neither form, or holds no certificate
   */
  public static SSLSocketFactory socketFactory(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    try {
      KeyStore trusted = looksLikeKeyStore(bytes) ? keyStore(file) : certificates(file, bytes);
      if (trusted.size() == 0) {
        throw new IOException(
            file
                + " holds no certificate readable without a password; give the CA certificate as a"
                + " PEM file instead");
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context.getSocketFactory();
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot read the trust store " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * PEM text starts with "-----BEGIN"; a DER certificate with an ASN.1 SEQUENCE, as PKCS12 does.
   */
  private static boolean looksLikeKeyStore(byte[] bytes) {
    boolean jks = bytes.length > 4 && (bytes[0] & 0xff) == 0xfe && (bytes[1] & 0xff) == 0xed;
    return jks || (!isPem(bytes) && !isDerCertificate(bytes));
  }

  private static boolean isPem(byte[] bytes) {
    return new String(bytes, 0, Math.min(bytes.length, 4096), StandardCharsets.US_ASCII)
        .contains("-----BEGIN CERTIFICATE-----");
  }

  private static boolean isDerCertificate(byte[] bytes) {
    try {
      CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(bytes));
      return true;
    } catch (GeneralSecurityException | RuntimeException e) {
      return false;
    }
  }

  private static KeyStore keyStore(Path file) throws IOException, GeneralSecurityException {
    return KeyStore.getInstance(file.toFile(), (char[]) null);
  }

  private static KeyStore certificates(Path file, byte[] bytes)
      throws IOException, GeneralSecurityException {
    Collection<? extends Certificate> certificates =
        CertificateFactory.getInstance("X.509")
            .generateCertificates(new ByteArrayInputStream(bytes));
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    int i = 0;
    for (Certificate certificate : certificates) {
      store.setCertificateEntry(file.getFileName() + "-" + i++, certificate);
    }
    return store;
  }
}
