package dev.shardkit.sharding.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stores {@link TestCertificateAuthority} writes are what a TLS peer needs: a node's chain
 * validates against the CA's trust store by the JDK's PKIX rules, names the loopback address, and
 * a chain from another CA does not validate.
 */
class TestCertificateAuthorityTest {
  static final String PASSWORD = "test-only";

  @TempDir
  Path dir;

  static KeyStore load(Path file) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      store.load(in, PASSWORD.toCharArray());
    }
    return store;
  }

  static void validate(X509Certificate[] chain, X509Certificate anchor) throws Exception {
    PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(anchor, null)));
    parameters.setRevocationEnabled(false);
    CertPathValidator.getInstance("PKIX").validate(
        CertificateFactory.getInstance("X.509").generateCertPath(List.of(chain[0])), parameters);
  }

  static X509Certificate[] chainIn(Path keyStore) throws Exception {
    KeyStore store = load(keyStore);
    return java.util.Arrays.stream(store.getCertificateChain("node"))
        .map(c -> (X509Certificate) c).toArray(X509Certificate[]::new);
  }

  @Test
  void aNodesChainValidatesAgainstItsCaAndNamesTheLoopbackAddress() throws Exception {
    TestCertificateAuthority ca = TestCertificateAuthority.create("test CA");
    X509Certificate[] chain = chainIn(ca.writeKeyStore(dir.resolve("node.p12"), PASSWORD, "node-0"));
    X509Certificate trusted = (X509Certificate) load(ca.writeTrustStore(dir.resolve("trust.p12"), PASSWORD))
        .getCertificate("ca");

    assertEquals(ca.certificate(), trusted, "the trust store holds the CA's certificate");
    assertEquals(List.of("CN=node-0", "CN=test CA"),
        List.of(chain[0].getSubjectX500Principal().getName(), chain[1].getSubjectX500Principal().getName()),
        "the chain is the node's certificate, then the CA's");
    assertTrue(ca.certificate().getBasicConstraints() >= 0, "the CA's certificate is marked as a CA");
    assertEquals(-1, chain[0].getBasicConstraints(), "a node's certificate is not a CA");
    assertEquals(Set.of(List.of(7, "127.0.0.1"), List.of(2, "localhost")),
        Set.copyOf(chain[0].getSubjectAlternativeNames()), "the node's certificate names the loopback address");
    assertTrue(load(dir.resolve("node.p12")).isKeyEntry("node"), "the key store holds the node's private key");
    validate(chain, trusted);
  }

  @Test
  void aChainFromAnotherCaDoesNotValidate() throws Exception {
    TestCertificateAuthority ca = TestCertificateAuthority.create("test CA");
    X509Certificate[] foreign = chainIn(TestCertificateAuthority.create("another CA")
        .writeKeyStore(dir.resolve("other.p12"), PASSWORD, "node-0"));
    assertThrows(CertPathValidatorException.class, () -> validate(foreign, ca.certificate()));
  }

  @Test
  void aBlankNameOrAnEmptyPasswordIsRefusedNamingWhatIsWrong() {
    IllegalArgumentException name = assertThrows(IllegalArgumentException.class,
        () -> TestCertificateAuthority.create(" "));
    assertTrue(name.getMessage().contains("common name"), name.getMessage());
    TestCertificateAuthority ca = TestCertificateAuthority.create("test CA");
    IllegalArgumentException password = assertThrows(IllegalArgumentException.class,
        () -> ca.writeTrustStore(dir.resolve("t.p12"), ""));
    assertTrue(password.getMessage().contains("password"), password.getMessage());
  }
}
