package dev.tandem.api;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Typed reads of JSON values, shared by request bodies ({@link JsonFields}: a 400) and
 * configuration files ({@code dev.tandem.config}: exit code 2). JSON {@code null} counts as absent
 * and reads as Java {@code null}; integral floats such as {@code 16.0} are integers (as pydantic
 * accepts them); anything else of the wrong type is reported through {@link Failures}, so each
 * surface keeps its own failure type and wording while the rules stay in one place.
 */
public final class JsonFieldReader {

  /** How a surface reports a bad value of field {@code field}. */
  public interface Failures {
    /** {@code got} is not {@code expected} ("an integer", "a string", ...). */
    RuntimeException wrongType(String field, String expected, Object got);

    /** {@code got} is an integer, but outside what the field can hold. */
    RuntimeException outOfRange(String field, long got);
  }

  /** Beyond this a double no longer holds every integer exactly. */
  private static final double EXACT_INTEGER_LIMIT = 9.0e15;

  private final Failures failures;

  public JsonFieldReader(Failures failures) {
    this.failures = failures;
  }

  /** An integer that fits a long; {@code expected} names it in the failure ("an integer"). */
  public Long longValue(String field, Object v, String expected) {
    if (v == null) {
      return null;
    }
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof Number n) {
      double d = n.doubleValue();
      if (d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < EXACT_INTEGER_LIMIT) {
        return (long) d;
      }
    }
    throw failures.wrongType(field, expected, v);
  }

  public Long longValue(String field, Object v) {
    return longValue(field, v, "an integer");
  }

  /** An integer that fits an int; a larger one is {@link Failures#outOfRange}. */
  public Integer intValue(String field, Object v, String expected) {
    Long l = longValue(field, v, expected);
    if (l == null) {
      return null;
    }
    if (l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
      throw failures.outOfRange(field, l);
    }
    return l.intValue();
  }

  public Integer intValue(String field, Object v) {
    return intValue(field, v, "an integer");
  }

  /** A finite number. */
  public Double doubleValue(String field, Object v) {
    if (v == null) {
      return null;
    }
    if (v instanceof Number n) {
      double d = n.doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw failures.wrongType(field, "a finite number", v);
      }
      return d;
    }
    throw failures.wrongType(field, "a number", v);
  }

  public Boolean booleanValue(String field, Object v) {
    if (v == null || v instanceof Boolean) {
      return (Boolean) v;
    }
    throw failures.wrongType(field, "a boolean", v);
  }

  public String stringValue(String field, Object v) {
    if (v == null || v instanceof String) {
      return (String) v;
    }
    throw failures.wrongType(field, "a string", v);
  }

  public JsonObject objectValue(String field, Object v) {
    if (v == null || v instanceof JsonObject) {
      return (JsonObject) v;
    }
    throw failures.wrongType(field, "an object", v);
  }

  public JsonArray arrayValue(String field, Object v) {
    if (v == null || v instanceof JsonArray) {
      return (JsonArray) v;
    }
    throw failures.wrongType(field, "an array", v);
  }
}
