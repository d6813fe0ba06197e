package dev.tandem.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class EngineStatusTest {

  private static final EngineStatus STATUS = new EngineStatus(3, "http://127.0.0.1:8081",
      EngineRole.DECODE, 1, 1, EngineState.READY, 2, null, EngineStatus.MLC,
      new EngineStatus.World(1, true));

  @Test
  void roundTripsThroughJsonTextAsOnAClusteredBus() {
    assertEquals(STATUS, EngineStatus.fromJson(new JsonObject(STATUS.toJson().encode())));
  }

  @Test
  void aPublisherThatLeavesOutAFieldIsToldWhichOne() {
    JsonObject json = STATUS.toJson();
    json.remove("numPes");
    assertEquals("an engine status without \"numPes\" (an integer)",
        assertThrows(IllegalArgumentException.class, () -> EngineStatus.fromJson(json)).getMessage());
  }

  @Test
  void aWrongTypeOrAnUnknownNameIsNamedToo() {
    JsonObject wrongType = STATUS.toJson().put("id", "three");
    assertEquals("an engine status has \"id\": three, not an integer",
        assertThrows(IllegalArgumentException.class, () -> EngineStatus.fromJson(wrongType))
            .getMessage());
    JsonObject unknownRole = STATUS.toJson().put("role", "VERIFY");
    assertEquals("an engine status has \"role\": \"VERIFY\", not one of [PREFILL, DECODE, BOTH]",
        assertThrows(IllegalArgumentException.class, () -> EngineStatus.fromJson(unknownRole))
            .getMessage());
  }

  @Test
  void aLoadReportWithoutItsIdSaysSo() {
    assertEquals("a load report without \"id\" (an integer)",
        assertThrows(IllegalArgumentException.class,
            () -> LoadReport.fromJson(new JsonObject().put("periodMs", 5))).getMessage());
  }
}
