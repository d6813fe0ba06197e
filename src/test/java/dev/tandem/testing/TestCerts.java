package dev.tandem.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed key and certificate as PEM files, made with the JDK's keytool (no library): for
 * tests of TLS between cluster members, each presenting the certificate and trusting it.
 */
public final class TestCerts {

  /** The PEM files of one self-signed member identity. */
  public record Pem(Path key, Path cert) {}

  private static final char[] PASS = "changeit".toCharArray();

  private TestCerts() {}

  public static Pem selfSigned(Path dir) throws IOException, InterruptedException,
      GeneralSecurityException {
    Files.createDirectories(dir);
    Path store = dir.resolve("member.p12");
    Process keytool = new ProcessBuilder(List.of(
        Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-genkeypair",
        "-alias", "member", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
        "-dname", "CN=tandem-test", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
        "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", new String(PASS),
        "-keypass", new String(PASS))).redirectErrorStream(true).start();
    String out = new String(keytool.getInputStream().readAllBytes());
    if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
      throw new IOException("keytool failed: " + out);
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, PASS);
    }
    Key key = ks.getKey("member", PASS);
    Path keyPem = Files.writeString(dir.resolve("member-key.pem"),
        pem("PRIVATE KEY", key.getEncoded()));
    Path certPem = Files.writeString(dir.resolve("member-cert.pem"),
        pem("CERTIFICATE", ks.getCertificate("member").getEncoded()));
    return new Pem(keyPem, certPem);
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }
}
