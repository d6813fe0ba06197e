package dev.tandem.config;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Typed reads from a configuration object, each failure a {@link ConfigException} naming the key;
 * remembers which keys were read so that a misspelt key is reported instead of silently ignored.
 */
final class JsonReader {
  private final JsonObject json;
  private final Set<String> known = new LinkedHashSet<>();

  JsonReader(JsonObject json) {
    this.json = json == null ? new JsonObject() : json;
  }

  String string(String key, String fallback) {
    Object value = value(key);
    if (value == null) {
      return fallback;
    }
    if (!(value instanceof String s)) {
      throw wrongType(key, "a string", value);
    }
    return s;
  }

  int integer(String key, int fallback) {
    Object value = value(key);
    if (value == null) {
      return fallback;
    }
    return asInt(key, value);
  }

  double number(String key, double fallback) {
    Object value = value(key);
    if (value == null) {
      return fallback;
    }
    if (!(value instanceof Number n)) {
      throw wrongType(key, "a number", value);
    }
    return n.doubleValue();
  }

  boolean bool(String key, boolean fallback) {
    Object value = value(key);
    if (value == null) {
      return fallback;
    }
    if (!(value instanceof Boolean b)) {
      throw wrongType(key, "true or false", value);
    }
    return b;
  }

  Duration millis(String key, Duration fallback) {
    Object value = value(key);
    if (value == null) {
      return fallback;
    }
    if (!(value instanceof Number n) || n.doubleValue() != Math.floor(n.doubleValue())) {
      throw wrongType(key, "a whole number of milliseconds", value);
    }
    return Duration.ofMillis(n.longValue());
  }

  List<String> strings(String key, List<String> fallback) {
    JsonArray array = array(key);
    if (array == null) {
      return fallback;
    }
    List<String> out = new ArrayList<>(array.size());
    for (Object item : array) {
      if (!(item instanceof String s)) {
        throw wrongType(key, "a list of strings", item);
      }
      out.add(s);
    }
    return List.copyOf(out);
  }

  List<Integer> integers(String key, List<Integer> fallback) {
    JsonArray array = array(key);
    if (array == null) {
      return fallback;
    }
    List<Integer> out = new ArrayList<>(array.size());
    for (Object item : array) {
      out.add(asInt(key, item));
    }
    return List.copyOf(out);
  }

  /** Fails on the first key that no read asked for. */
  void rejectUnknownKeys() {
    for (String key : json.fieldNames()) {
      if (!known.contains(key)) {
        throw new ConfigException("unknown router configuration key '" + key + "' (known keys: "
            + String.join(", ", known) + ")");
      }
    }
  }

  private JsonArray array(String key) {
    Object value = value(key);
    if (value == null) {
      return null;
    }
    if (!(value instanceof JsonArray a)) {
      throw wrongType(key, "a list", value);
    }
    return a;
  }

  private Object value(String key) {
    known.add(key);
    return json.getValue(key);
  }

  private static int asInt(String key, Object value) {
    if (!(value instanceof Number n) || n.doubleValue() != Math.floor(n.doubleValue())
        || n.longValue() != n.intValue()) {
      throw wrongType(key, "a whole number", value);
    }
    return n.intValue();
  }

  private static ConfigException wrongType(String key, String expected, Object value) {
    return new ConfigException("router configuration key '" + key + "' must be " + expected
        + ", not " + (value instanceof String ? "'" + value + "'" : String.valueOf(value)));
  }
}
