package dev.tandem.router.upstream;

import dev.tandem.api.JsonTree;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;

/**
 * An engine's {@code usage.extra}: its own record of the request (MLC's RequestMetrics, the
 * builtin engine's counts). The router passes it on to the client, reads the cached prefix's
 * length from it, and takes the builtin engine's {@code output_token_ids} out of it.
 *
 * <p>Where {@link ChunkScanner} read a flat record (names without escapes, each once, values
 * that are strings, numbers, booleans or null, neither {@code output_token_ids} nor
 * {@code routing} among the names), the record is kept as the engine's bytes with the whitespace
 * between tokens removed ({@link #bytes}), the cached prefix's length picked out, and a JsonObject
 * made only when something asks for one ({@link #json}). A stream's usage chunk splices those
 * bytes, so the engine's numbers are neither parsed nor written again. MLC engines behind a router
 * run with {@code --enable-debug}, so every request's last chunk carries ten such metrics. The
 * client then sees the engine's own spelling of each number ({@code 1e-05} where Jackson writes
 * {@code 1.0E-5}); the values are the same. Any other record, and any read by Jackson, is held as
 * its JsonObject.
 */
public final class UsageExtra {

  private static final String OUTPUT_TOKEN_IDS = "output_token_ids";

  /** The record as compact JSON, or null where it is only a JsonObject. */
  private final byte[] bytes;
  private final int cachedTokens;
  private JsonObject json;

  private UsageExtra(byte[] bytes, int cachedTokens, JsonObject json) {
    this.bytes = bytes;
    this.cachedTokens = cachedTokens;
    this.json = json;
  }

  /** A record read as a JsonObject. */
  public static UsageExtra of(JsonObject json) {
    return new UsageExtra(null, cachedTokens(json), json);
  }

  /**
   * A flat record's compact bytes ({@code {...}}, as the class describes them) and the values of
   * its {@code prefix_matched_length} and {@code cached_tokens} (null where absent or not numbers).
   */
  static UsageExtra ofBytes(byte[] compact, Number prefixMatchedLength, Number cachedTokens) {
    return new UsageExtra(compact, cachedTokens(prefixMatchedLength, cachedTokens), null);
  }

  /**
   * The record as a JsonObject, made from the bytes on the first call where there are bytes (a
   * flat record: the client body's reader builds the same object of it as the scan would).
   */
  public JsonObject json() {
    if (json == null) {
      JsonObject read = JsonTree.object(bytes, 0, bytes.length);
      // not expected: the scan checked every value as this reads it
      json = read != null ? read : new JsonObject(new String(bytes, StandardCharsets.UTF_8));
    }
    return json;
  }

  /**
   * The record as compact JSON to pass on as it is, or null: then {@link #json} is the record and
   * it may hold what a client is not given ({@code output_token_ids}) or what the router replaces
   * ({@code routing}).
   */
  public byte[] bytes() {
    return bytes;
  }

  /**
   * How many of the prompt's tokens the engine found in its prefix cache ({@code
   * prefix_matched_length}, else {@code cached_tokens}), or -1 where the record does not say.
   */
  public int cachedTokens() {
    return cachedTokens;
  }

  /** The builtin engine's generated token ids per choice (its debug mode), or null. */
  public JsonArray outputTokenIds() {
    return bytes != null ? null : json.getJsonArray(OUTPUT_TOKEN_IDS);
  }

  private static int cachedTokens(JsonObject json) {
    return cachedTokens(json.getValue("prefix_matched_length") instanceof Number n ? n : null,
        json.getValue("cached_tokens") instanceof Number n ? n : null);
  }

  private static int cachedTokens(Number prefixMatchedLength, Number cachedTokens) {
    Number v = prefixMatchedLength != null ? prefixMatchedLength : cachedTokens;
    return v != null ? v.intValue() : -1;
  }

  /** Equal when the records are: the same members with the same values, however they are held. */
  @Override
  public boolean equals(Object o) {
    return o instanceof UsageExtra other && json().equals(other.json());
  }

  @Override
  public int hashCode() {
    return json().hashCode();
  }

  @Override
  public String toString() {
    return json().encode();
  }
}
