package dev.shardkit.sharding.testsupport;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import javax.security.auth.x500.X500Principal;

/**
 * A certificate authority made at test time, for tests of TLS between nodes: it issues node
 * certificates and writes the PKCS12 key stores and trust stores that Artery's
 * {@code config-ssl-engine} reads, so no private key is ever checked in.
 *
 * <p>Built on the JDK alone: EC P-256 keys, certificates signed with SHA256withECDSA, valid from
 * an hour ago for a day. The CA's certificate is self-signed and marked as a CA; a node
 * certificate names the node in its subject and carries {@code 127.0.0.1} and {@code localhost}
 * as subject alternative names, so hostname verification passes on loopback. Every certificate
 * this class writes is read back by the JDK's own {@link CertificateFactory}, so a malformed one
 * fails here rather than in a handshake.
 *
 * <p>Thread-safe: it holds no mutable state.
 */
public final class TestCertificateAuthority {
  private static final String SIGNATURE_ALGORITHM = "SHA256withECDSA";
  private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
  private static final String SUBJECT_ALT_NAME = "2.5.29.17";
  private static final String BASIC_CONSTRAINTS = "2.5.29.19";
  private static final Duration VALIDITY = Duration.ofDays(1);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final X500Principal name;
  private final KeyPair keys;
  private final X509Certificate certificate;

  private TestCertificateAuthority(X500Principal name, KeyPair keys, X509Certificate certificate) {
    this.name = name;
    this.keys = keys;
    this.certificate = certificate;
  }

  /**
   * A new CA with a fresh key pair and a self-signed certificate for {@code CN=commonName}.
   *
   * @throws IllegalArgumentException if {@code commonName} is null or blank
   * @throws IllegalStateException if the JDK cannot make EC keys or sign (it always can on Java 17)
   */
  public static TestCertificateAuthority create(String commonName) {
    X500Principal name = principal(commonName);
    KeyPair keys = newKeyPair();
    byte[] basicConstraintsCa = seq(bool(true));
    byte[] extensions = seq(extension(BASIC_CONSTRAINTS, true, basicConstraintsCa));
    X509Certificate certificate = sign(name, name, keys.getPublic(), keys.getPrivate(), extensions);
    return new TestCertificateAuthority(name, keys, certificate);
  }

  /** The CA's own certificate, the one a trust store holds. */
  public X509Certificate certificate() {
    return certificate;
  }

  /**
   * Writes a PKCS12 trust store that trusts this CA, and only it.
   *
   * @return {@code file}
   * @throws IllegalArgumentException if {@code password} is null or empty
   * @throws IOException if the file cannot be written
   */
  public Path writeTrustStore(Path file, String password) throws IOException {
    KeyStore store = emptyStore(password);
    try {
      store.setCertificateEntry("ca", certificate);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot hold the CA's certificate in a PKCS12 store", e);
    }
    return write(store, file, password);
  }

  /**
   * Issues a certificate for a new key pair of node {@code nodeName} and writes both, with this
   * CA's certificate as the rest of the chain, into a PKCS12 key store whose store and key share
   * {@code password}.
   *
   * @return {@code file}
   * @throws IllegalArgumentException if {@code nodeName} is null or blank, or {@code password} is
   *     null or empty
   * @throws IOException if the file cannot be written
   */
  public Path writeKeyStore(Path file, String password, String nodeName) throws IOException {
    X500Principal subject = principal(nodeName);
    KeyStore store = emptyStore(password);
    KeyPair nodeKeys = newKeyPair();
    byte[] loopback = tagged(0x87, new byte[] {127, 0, 0, 1});
    byte[] localhost = tagged(0x82, "localhost".getBytes(StandardCharsets.US_ASCII));
    byte[] extensions = seq(extension(SUBJECT_ALT_NAME, false, seq(loopback, localhost)));
    X509Certificate issued = sign(subject, name, nodeKeys.getPublic(), keys.getPrivate(), extensions);
    try {
      store.setKeyEntry("node", nodeKeys.getPrivate(), password.toCharArray(),
          new Certificate[] {issued, certificate});
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot hold node " + nodeName + "'s key in a PKCS12 store", e);
    }
    return write(store, file, password);
  }

  private static X500Principal principal(String commonName) {
    if (commonName == null || commonName.isBlank()) {
      throw new IllegalArgumentException("a certificate's common name must not be null or blank, was ["
          + commonName + "]");
    }
    return new X500Principal("CN=" + commonName);
  }

  private static KeyPair newKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot make an EC P-256 key pair", e);
    }
  }

  private static KeyStore emptyStore(String password) {
    if (password == null || password.isEmpty()) {
      throw new IllegalArgumentException("a key or trust store's password must not be null or empty");
    }
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      return store;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("the JDK cannot make a PKCS12 store", e);
    }
  }

  private static Path write(KeyStore store, Path file, String password) throws IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      store.store(out, password.toCharArray());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot write the PKCS12 store " + file, e);
    }
    return file;
  }

  /** An X.509 v3 certificate (RFC 5280, section 4.1) for {@code subjectKey}, signed by {@code issuerKey}. */
  private static X509Certificate sign(X500Principal subject, X500Principal issuer, PublicKey subjectKey,
      PrivateKey issuerKey, byte[] extensions) {
    Instant now = Instant.now();
    byte[] algorithm = seq(oid(ECDSA_WITH_SHA256));
    byte[] tbs = seq(
        tagged(0xA0, integer(BigInteger.TWO)),
        integer(new BigInteger(63, RANDOM).add(BigInteger.ONE)),
        algorithm,
        issuer.getEncoded(),
        seq(utcTime(now.minus(Duration.ofHours(1))), utcTime(now.plus(VALIDITY))),
        subject.getEncoded(),
        subjectKey.getEncoded(),
        tagged(0xA3, extensions));
    try {
      Signature signer = Signature.getInstance(SIGNATURE_ALGORITHM);
      signer.initSign(issuerKey, RANDOM);
      signer.update(tbs);
      byte[] der = seq(tbs, algorithm, bitString(signer.sign()));
      return (X509Certificate) CertificateFactory.getInstance("X.509")
          .generateCertificate(new ByteArrayInputStream(der));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign a certificate for " + subject, e);
    }
  }

  private static byte[] extension(String oid, boolean critical, byte[] value) {
    return critical ? seq(oid(oid), bool(true), tagged(0x04, value)) : seq(oid(oid), tagged(0x04, value));
  }

  // DER, the few types a certificate needs (ITU-T X.690).

  private static byte[] seq(byte[]... parts) {
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      content.writeBytes(part);
    }
    return tagged(0x30, content.toByteArray());
  }

  private static byte[] integer(BigInteger value) {
    return tagged(0x02, value.toByteArray());
  }

  private static byte[] bool(boolean value) {
    return tagged(0x01, new byte[] {(byte) (value ? 0xFF : 0x00)});
  }

  private static byte[] bitString(byte[] bits) {
    byte[] content = new byte[bits.length + 1];
    System.arraycopy(bits, 0, content, 1, bits.length);
    return tagged(0x03, content);
  }

  private static byte[] utcTime(Instant instant) {
    String text = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC).format(instant);
    return tagged(0x17, text.getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] oid(String dotted) {
    String[] arcs = dotted.split("\\.");
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    content.write(Integer.parseInt(arcs[0]) * 40 + Integer.parseInt(arcs[1]));
    for (int i = 2; i < arcs.length; i++) {
      long arc = Long.parseLong(arcs[i]);
      int groups = Math.max(1, (64 - Long.numberOfLeadingZeros(arc) + 6) / 7);
      for (int g = groups - 1; g >= 0; g--) {
        int seven = (int) ((arc >>> (7 * g)) & 0x7F);
        content.write(g == 0 ? seven : seven | 0x80);
      }
    }
    return tagged(0x06, content.toByteArray());
  }

  private static byte[] tagged(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int length = content.length;
    if (length < 0x80) {
      out.write(length);
    } else {
      int bytes = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(length >>> (8 * i));
      }
    }
    out.writeBytes(content);
    return out.toByteArray();
  }
}
