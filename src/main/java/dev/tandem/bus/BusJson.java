package dev.tandem.bus;

import io.vertx.core.json.JsonObject;
import java.util.Arrays;

/**
 * Required fields of the fleet's bus messages, read with a failure that names the message and the
 * field: a node of another version, or any publisher that leaves one out, is reported as such,
 * not as a NullPointerException from unboxing.
 */
final class BusJson {

  private BusJson() {}

  /** {@code json}'s integer {@code key}; {@code message} names what it is ("an engine status"). */
  static int requiredInt(JsonObject json, String message, String key) {
    return Math.toIntExact(requiredLong(json, message, key));
  }

  static long requiredLong(JsonObject json, String message, String key) {
    Object v = json.getValue(key);
    if (v instanceof Integer || v instanceof Long) {
      return ((Number) v).longValue();
    }
    throw missing(message, key, "an integer", v);
  }

  static String requiredString(JsonObject json, String message, String key) {
    Object v = json.getValue(key);
    if (v instanceof String s) {
      return s;
    }
    throw missing(message, key, "a string", v);
  }

  static <E extends Enum<E>> E requiredEnum(JsonObject json, String message, String key,
      Class<E> type) {
    String name = requiredString(json, message, key);
    try {
      return Enum.valueOf(type, name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(message + " has \"" + key + "\": \"" + name
          + "\", not one of " + Arrays.toString(type.getEnumConstants()));
    }
  }

  private static IllegalArgumentException missing(String message, String key, String expected,
      Object got) {
    return new IllegalArgumentException(got == null
        ? message + " without \"" + key + "\" (" + expected + ")"
        : message + " has \"" + key + "\": " + got + ", not " + expected);
  }
}
