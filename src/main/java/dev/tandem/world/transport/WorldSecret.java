package dev.tandem.world.transport;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The world's shared secret, used only as an HMAC-SHA256 key: members prove they hold it by
 * signing a peer's fresh nonce, so the secret itself never travels.
 */
public final class WorldSecret {
  public static final int PROOF_BYTES = 32;
  private static final String ALGORITHM = "HmacSHA256";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;

  public WorldSecret(byte[] secret) {
    if (secret.length < 16) {
      throw new IllegalArgumentException("a world secret has at least 16 bytes");
    }
    this.key = new SecretKeySpec(secret.clone(), ALGORITHM);
  }

  /** HMAC over a purpose label and the parts, each length-prefixed so that no two inputs collide. */
  public byte[] proof(String purpose, byte[]... parts) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      update(mac, purpose.getBytes(StandardCharsets.UTF_8));
      for (byte[] part : parts) {
        update(mac, part);
      }
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
    }
  }

  /** Constant-time check of a peer's proof. */
  public boolean verify(byte[] proof, String purpose, byte[]... parts) {
    return proof != null && MessageDigest.isEqual(proof, proof(purpose, parts));
  }

  public static byte[] nonce() {
    byte[] nonce = new byte[16];
    RANDOM.nextBytes(nonce);
    return nonce;
  }

  private static void update(Mac mac, byte[] part) {
    mac.update(ByteBuffer.allocate(4).putInt(part.length).array());
    mac.update(part);
  }

  @Override
  public String toString() {
    return "WorldSecret{...}";
  }
}
