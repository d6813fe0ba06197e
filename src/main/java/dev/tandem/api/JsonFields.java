package dev.tandem.api;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Typed reads of request-body fields (the rules are {@link JsonFieldReader}'s). JSON {@code null}
 * counts as absent (as pydantic and MLC's C++ parser treat it); a value of the wrong JSON type is a
 * 400 naming the field.
 */
public final class JsonFields {
  private static final JsonFieldReader READ = new JsonFieldReader(new JsonFieldReader.Failures() {
    @Override
    public RuntimeException wrongType(String field, String expected, Object got) {
      return typeError(field, expected, got);
    }

    @Override
    public RuntimeException outOfRange(String field, long got) {
      return ApiError.invalid(field, "\"" + field + "\" is out of range: " + got);
    }
  });

  private JsonFields() {}

  public static Integer optInt(JsonObject body, String name) {
    return READ.intValue(name, body.getValue(name));
  }

  public static Long optLong(JsonObject body, String name) {
    return READ.longValue(name, body.getValue(name));
  }

  public static int requireInt(JsonObject body, String name) {
    Integer v = optInt(body, name);
    if (v == null) {
      throw ApiError.invalid(name, "\"" + name + "\" is required");
    }
    return v;
  }

  public static Double optDouble(JsonObject body, String name) {
    return READ.doubleValue(name, body.getValue(name));
  }

  public static Boolean optBoolean(JsonObject body, String name) {
    return READ.booleanValue(name, body.getValue(name));
  }

  public static String optString(JsonObject body, String name) {
    return READ.stringValue(name, body.getValue(name));
  }

  public static String requireString(JsonObject body, String name) {
    String s = optString(body, name);
    if (s == null) {
      throw ApiError.invalid(name, "\"" + name + "\" is required");
    }
    return s;
  }

  public static JsonObject optObject(JsonObject body, String name) {
    return READ.objectValue(name, body.getValue(name));
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
