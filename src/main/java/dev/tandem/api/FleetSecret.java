package dev.tandem.api;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The fleet's secret: a builtin engine that listens beyond loopback answers only callers that
 * send it (MicroServing calls write into its KV cache, so an open port would let anyone on the
 * network do that). The supervisor hands it to such an engine in its environment ({@link #ENV},
 * never on the command line or in a log), the router and the engine's EngineVerticle send it in
 * {@link #HEADER} on every call.
 */
public final class FleetSecret {
  /** The engine's environment entry that holds the secret. */
  public static final String ENV = "TANDEM_FLEET_SECRET";
  /** The request header that carries it. */
  public static final String HEADER = "X-Tandem-Fleet-Secret";

  private FleetSecret() {}

  /** A new random secret: 32 bytes, hex. */
  public static String random() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** Whether {@code given} is {@code expected}, in time that does not depend on where they differ. */
  public static boolean matches(String expected, String given) {
    return given != null && MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8),
        given.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Whether a server on {@code host} is reachable from other machines (not loopback), so that
   * it needs the secret. A name that does not resolve counts as reachable. Blocking: may ask DNS.
   */
  public static boolean beyondLoopback(String host) {
    try {
      return !InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return true;
    }
  }

  /** The error a caller without the secret gets (401, OpenAI's shape). */
  public static ApiError refusal() {
    return new ApiError(401, "authentication_error", "this engine answers its fleet's router only:"
        + " the " + HEADER + " header is missing or wrong", null, "fleet_secret_required");
  }
}
