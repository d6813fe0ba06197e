package dev.tandem.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class LoadReportTest {

  @Test
  void roundTripsThroughJsonTextAsOnAClusteredBus() {
    LoadReport builtin = new LoadReport(2, 3, 4, 11, 80L, 128L, 1000, 1_700_000_000_123L,
        new JsonObject().put("prompt_tokens_sum", 10).put("running", 4));
    JsonObject json = new JsonObject(builtin.toJson().encode());
    assertEquals(new JsonObject("""
        {"id": 2, "generation": 3, "running": 4, "waiting": 11, "kvPagesFree": 80,
         "kvPagesTotal": 128, "periodMs": 1000, "timestamp": 1700000000123,
         "metrics": {"prompt_tokens_sum": 10, "running": 4}}"""), json);
    assertEquals(builtin, LoadReport.fromJson(json));
    assertTrue(builtin.hasQueue());
  }

  @Test
  void unknownGaugesAreAbsentNotZero() {
    LoadReport mlc = new LoadReport(0, 0, null, null, null, null, 500, 1,
        new JsonObject().put("decode_tokens_sum", 99));
    JsonObject json = mlc.toJson();
    assertFalse(json.containsKey("running"));
    assertFalse(json.containsKey("waiting"));
    assertFalse(json.containsKey("kvPagesFree"));
    LoadReport back = LoadReport.fromJson(json);
    assertNull(back.running());
    assertNull(back.kvPagesTotal());
    assertFalse(back.hasQueue());
    assertEquals(99, back.metrics().getInteger("decode_tokens_sum"));
  }

  @Test
  void staleAfterThreeOfItsOwnPeriods() {
    LoadReport r = new LoadReport(0, 0, 1, 0, null, null, 200, 0, null);
    assertFalse(r.staleAt(10_000, 10_600));
    assertTrue(r.staleAt(10_000, 10_601));
    assertEquals(new JsonObject(), r.metrics());
  }

  @Test
  void aReportNeedsAPositivePeriodAndAnId() {
    assertThrows(IllegalArgumentException.class,
        () -> new LoadReport(0, 0, 1, 0, null, null, 0, 0, null));
    assertThrows(RuntimeException.class, () -> LoadReport.fromJson(new JsonObject().put("periodMs", 5)));
  }
}
