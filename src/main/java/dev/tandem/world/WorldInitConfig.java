package dev.tandem.world;

import dev.tandem.kv.KvWorld;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * The value of {@code MLC_NVSHMEM_INIT_CONFIG_JSON_STR}: {@code {"uid": [125 ints], "npes": N,
 * "pe_start": S}}. Read as TVM's {@code init_nvshmem_wrapper} reads it (an object with those three
 * keys, JSON integers only, other keys ignored) and written as MLC's router writes it (Python
 * {@code json.dumps}: separators {@code ", "} and {@code ": "}, key order uid, npes, pe_start).
 * Holds NVSHMEM and Tandem uids alike; {@link WorldUid#decode} tells them apart.
 */
public record WorldInitConfig(int[] uid, int npes, int peStart) {
  private static final String NAME = KvWorld.ENV;

  public WorldInitConfig {
    uid = uid.clone();
  }

  @Override
  public int[] uid() {
    return uid.clone();
  }

  /** Python {@code json.dumps} form, as MLC's router produces it. */
  public String toJson() {
    StringBuilder s = new StringBuilder(uid.length * 5 + 48).append("{\"uid\": [");
    for (int i = 0; i < uid.length; i++) {
      if (i > 0) {
        s.append(", ");
      }
      s.append(uid[i]);
    }
    return s.append("], \"npes\": ").append(npes).append(", \"pe_start\": ").append(peStart).append('}')
        .toString();
  }

  /** Parses any valid JSON of the right shape; every refusal says what was wrong. */
  public static WorldInitConfig parse(String json) throws WorldException {
    if (json == null || json.isBlank()) {
      throw new WorldException(NAME + " is empty: expected {\"uid\": [125 integers], \"npes\": N, \"pe_start\": S}");
    }
    Object value;
    try {
      value = io.vertx.core.json.Json.decodeValue(json);
    } catch (DecodeException e) {
      throw new WorldException(NAME + " is not valid JSON: " + firstLine(e.getMessage()));
    }
    if (!(value instanceof JsonObject obj)) {
      throw new WorldException(NAME + " must be a JSON object {\"uid\": [...], \"npes\": N, \"pe_start\": S}, got "
          + typeName(value));
    }
    Object rawUid = require(obj, "uid");
    if (!(rawUid instanceof JsonArray array)) {
      throw new WorldException(NAME + ": \"uid\" must be an array of " + WorldUid.LENGTH + " integers, got "
          + typeName(rawUid));
    }
    if (array.size() != WorldUid.LENGTH) {
      throw new WorldException(NAME + ": \"uid\" must have " + WorldUid.LENGTH
          + " integers (a version, then " + WorldUid.BYTES + " bytes), got " + array.size());
    }
    int[] uid = new int[array.size()];
    for (int i = 0; i < uid.length; i++) {
      uid[i] = toInt(array.getValue(i), "uid[" + i + "]");
    }
    int npes = toInt(require(obj, "npes"), "\"npes\"");
    int peStart = toInt(require(obj, "pe_start"), "\"pe_start\"");
    if (npes < 1) {
      throw new WorldException(NAME + ": \"npes\" must be at least 1, got " + npes);
    }
    if (peStart < 0 || peStart >= npes) {
      throw new WorldException(NAME + ": \"pe_start\" must be in [0, npes=" + npes + "), got " + peStart);
    }
    return new WorldInitConfig(uid, npes, peStart);
  }

  private static Object require(JsonObject obj, String key) throws WorldException {
    if (!obj.containsKey(key)) {
      throw new WorldException(NAME + " has no \"" + key + "\" key: expected {\"uid\": [125 integers], \"npes\": N, \"pe_start\": S}");
    }
    return obj.getValue(key);
  }

  private static int toInt(Object v, String what) throws WorldException {
    if (v instanceof Integer i) {
      return i;
    }
    if (v instanceof Long || v instanceof BigInteger) {
      throw new WorldException(NAME + ": " + what + " = " + v + " is out of the 32-bit integer range");
    }
    throw new WorldException(NAME + ": " + what + " must be an integer, got " + typeName(v)
        + (v instanceof Number || v instanceof String ? " " + (v instanceof String ? "\"" + v + "\"" : v) : ""));
  }

  private static String typeName(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof JsonObject) {
      return "an object";
    }
    if (v instanceof JsonArray) {
      return "an array";
    }
    if (v instanceof String) {
      return "a string";
    }
    if (v instanceof Boolean) {
      return "a boolean";
    }
    if (v instanceof Number) {
      return "a non-integer number";
    }
    return v.getClass().getSimpleName();
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unparseable";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WorldInitConfig other && Arrays.equals(uid, other.uid) && npes == other.npes
        && peStart == other.peStart;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(uid) * 31 * 31 + npes * 31 + peStart;
  }

  @Override
  public String toString() {
    return "WorldInitConfig{npes=" + npes + ", pe_start=" + peStart + ", uid[0]=" + uid[0] + "}";
  }
}
