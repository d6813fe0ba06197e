package dev.tandem.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/**
 * The one set of typed-read rules, and the request-body surface over it ({@link JsonFields}: a 400
 * naming the field). The configuration surface (exit code 2) is pinned by RouterConfigJsonTest.
 */
class JsonFieldReaderTest {

  private static final class Reported extends RuntimeException {
    Reported(String message) {
      super(message);
    }
  }

  private static final JsonFieldReader READ = new JsonFieldReader(new JsonFieldReader.Failures() {
    @Override
    public RuntimeException wrongType(String field, String expected, Object got) {
      return new Reported(field + " not " + expected);
    }

    @Override
    public RuntimeException outOfRange(String field, long got) {
      return new Reported(field + " out of range " + got);
    }
  });

  @Test
  void nullIsAbsentAndIntegralFloatsAreIntegers() {
    assertNull(READ.intValue("n", null));
    assertNull(READ.stringValue("s", null));
    assertEquals(16, READ.intValue("n", 16.0));
    assertEquals(16L, READ.longValue("n", 16L));
    assertEquals(2.5, READ.doubleValue("x", 2.5f));
    assertEquals(new JsonArray().add(1), READ.arrayValue("a", new JsonArray().add(1)));
  }

  @Test
  void failuresGoThroughTheSurfacesReporter() {
    assertEquals("n not an integer", assertThrows(Reported.class, () -> READ.intValue("n", 16.5)).getMessage());
    assertEquals("n not a count", assertThrows(Reported.class, () -> READ.intValue("n", "3", "a count")).getMessage());
    assertEquals("n out of range 3000000000", assertThrows(Reported.class,
        () -> READ.intValue("n", 3_000_000_000L)).getMessage());
    assertEquals("n not an integer", assertThrows(Reported.class, () -> READ.longValue("n", 1e16)).getMessage());
    assertEquals("x not a finite number", assertThrows(Reported.class,
        () -> READ.doubleValue("x", Double.NaN)).getMessage());
    assertEquals("b not a boolean", assertThrows(Reported.class, () -> READ.booleanValue("b", 1)).getMessage());
    assertEquals("o not an object", assertThrows(Reported.class, () -> READ.objectValue("o", "{}")).getMessage());
  }

  @Test
  void requestBodiesGetA400NamingTheField() {
    JsonObject body = new JsonObject().put("n", "two").put("big", 5_000_000_000L).put("k", 3.0)
        .putNull("gone");
    ApiError type = assertThrows(ApiError.class, () -> JsonFields.optInt(body, "n"));
    assertEquals(400, type.status());
    assertEquals("n", type.param());
    assertEquals("invalid_type", type.code());
    assertEquals("\"n\" must be an integer, got the string \"two\"", type.getMessage());
    ApiError range = assertThrows(ApiError.class, () -> JsonFields.optInt(body, "big"));
    assertEquals("\"big\" is out of range: 5000000000", range.getMessage());
    assertEquals(3, JsonFields.optInt(body, "k"));
    assertNull(JsonFields.optInt(body, "gone"));
    assertEquals("\"gone\" is required",
        assertThrows(ApiError.class, () -> JsonFields.requireInt(body, "gone")).getMessage());
  }
}
