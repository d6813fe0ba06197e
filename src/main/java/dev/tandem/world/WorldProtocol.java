package dev.tandem.world;

import dev.tandem.world.transport.WorldSecret;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Messages between engines and the world root (JSON lines over TCP):
 *
 * <pre>
 * root to member on connect:  {"type":"hello","protocol":1,"nonce":B64,"npes":N}
 * member:  {"type":"register","member":ID,"npes":N,"pe_start":S,"num_pes":K,"kv_host":H,"kv_port":P,"proof":B64}
 *      or  {"type":"lookup","proof":B64}                      (ask for the current table, then close)
 * root:    {"type":"waiting","npes":N,"joined":[..],"missing":[..]}  (while the world forms)
 *          {"type":"table","table":{"version":V,"npes":N,"members":[{pe_start,num_pes,kv_host,kv_port,live,generation}]}}
 *          {"type":"error","message":M}                        (then the root closes)
 * </pre>
 *
 * A registered member keeps its connection open: the root pushes new tables on it, and its
 * closing tells the root the engine is gone. Proofs are HMAC-SHA256 with the uid's secret over the
 * root's nonce (and the registration's fields), so the secret never travels.
 */
final class WorldProtocol {
  static final int VERSION = 1;
  static final String HELLO = "hello";
  static final String REGISTER = "register";
  static final String LOOKUP = "lookup";
  static final String WAITING = "waiting";
  static final String TABLE = "table";
  static final String ERROR = "error";
  private static final String REGISTER_PURPOSE = "tandem-world-register";
  private static final String LOOKUP_PURPOSE = "tandem-world-lookup";

  private WorldProtocol() {}

  /** A member's registration, as sent and as checked. */
  record Registration(String member, int npes, int peStart, int numPes, String kvHost, int kvPort) {
    JsonObject toJson(WorldSecret secret, byte[] nonce) {
      return new JsonObject().put("type", REGISTER).put("member", member).put("npes", npes)
          .put("pe_start", peStart).put("num_pes", numPes).put("kv_host", kvHost).put("kv_port", kvPort)
          .put("proof", b64(secret.proof(REGISTER_PURPOSE, nonce, canonical())));
    }

    static Registration fromJson(JsonObject j) {
      return new Registration(j.getString("member"), j.getInteger("npes"), j.getInteger("pe_start"),
          j.getInteger("num_pes"), j.getString("kv_host"), j.getInteger("kv_port"));
    }

    boolean verify(WorldSecret secret, byte[] nonce, String proof) {
      return secret.verify(unb64(proof), REGISTER_PURPOSE, nonce, canonical());
    }

    private byte[] canonical() {
      return (member + "|" + npes + "|" + peStart + "|" + numPes + "|" + kvHost + "|" + kvPort)
          .getBytes(StandardCharsets.UTF_8);
    }
  }

  static JsonObject hello(byte[] nonce, int npes) {
    return new JsonObject().put("type", HELLO).put("protocol", VERSION).put("nonce", b64(nonce)).put("npes", npes);
  }

  static JsonObject lookup(WorldSecret secret, byte[] nonce) {
    return new JsonObject().put("type", LOOKUP).put("proof", b64(secret.proof(LOOKUP_PURPOSE, nonce)));
  }

  static boolean verifyLookup(WorldSecret secret, byte[] nonce, String proof) {
    return secret.verify(unb64(proof), LOOKUP_PURPOSE, nonce);
  }

  static JsonObject table(PeTable table) {
    return new JsonObject().put("type", TABLE).put("table", table.toJson());
  }

  static JsonObject waiting(PeTable table) {
    return new JsonObject().put("type", WAITING).put("npes", table.npes())
        .put("joined", new JsonArray(table.joinedPes())).put("missing", new JsonArray(table.missingPes()));
  }

  static JsonObject error(String message) {
    return new JsonObject().put("type", ERROR).put("message", message);
  }

  static String b64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  static byte[] unb64(String text) {
    try {
      return text == null ? null : Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
