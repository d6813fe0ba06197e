package dev.tandem.api;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Typed reads of request-body fields. JSON {@code null} counts as absent (as pydantic and MLC's
 * C++ parser treat it); a value of the wrong JSON type is a 400 naming the field.
 */
public final class JsonFields {
  private JsonFields() {}

  public static Integer optInt(JsonObject body, String name) {
    Long v = optLong(body, name);
    if (v == null) {
      return null;
    }
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw ApiError.invalid(name, "\"" + name + "\" is out of range: " + v);
    }
    return v.intValue();
  }

  public static Long optLong(JsonObject body, String name) {
    Object v = body.getValue(name);
    if (v == null) {
      return null;
    }
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof Number n) {
      // pydantic accepts integral floats such as 16.0 for int fields; anything else is a type error
      double d = n.doubleValue();
      if (d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < 9.0e15) {
        return (long) d;
      }
    }
    throw typeError(name, "an integer", v);
  }

  public static int requireInt(JsonObject body, String name) {
    if (!body.containsKey(name) || body.getValue(name) == null) {
      throw ApiError.invalid(name, "\"" + name + "\" is required");
    }
    return optInt(body, name);
  }

  public static Double optDouble(JsonObject body, String name) {
    Object v = body.getValue(name);
    if (v == null) {
      return null;
    }
    if (v instanceof Number n) {
      double d = n.doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw typeError(name, "a finite number", v);
      }
      return d;
    }
    throw typeError(name, "a number", v);
  }

  public static Boolean optBoolean(JsonObject body, String name) {
    Object v = body.getValue(name);
    if (v == null) {
      return null;
    }
    if (v instanceof Boolean b) {
      return b;
    }
    throw typeError(name, "a boolean", v);
  }

  public static String optString(JsonObject body, String name) {
    Object v = body.getValue(name);
    if (v == null) {
      return null;
    }
    if (v instanceof String s) {
      return s;
    }
    throw typeError(name, "a string", v);
  }

  public static String requireString(JsonObject body, String name) {
    String s = optString(body, name);
    if (s == null) {
      throw ApiError.invalid(name, "\"" + name + "\" is required");
    }
    return s;
  }

  public static JsonObject optObject(JsonObject body, String name) {
    Object v = body.getValue(name);
    if (v == null) {
      return null;
    }
    if (v instanceof JsonObject o) {
      return o;
    }
    throw typeError(name, "an object", v);
  }

  public static ApiError typeError(String name, String expected, Object got) {
    return ApiError.invalid(name, "invalid_type",
        "\"" + name + "\" must be " + expected + ", got " + describe(got));
  }

  /** A short description of a JSON value for error messages ("the string \"ab\"", "an array"). */
  public static String describe(Object v) {
    if (v instanceof String s) {
      return "the string \"" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "\"";
    }
    if (v instanceof JsonArray) {
      return "an array";
    }
    if (v instanceof JsonObject) {
      return "an object";
    }
    if (v instanceof Boolean b) {
      return "the boolean " + b;
    }
    return String.valueOf(v);
  }
}
