package dev.tandem.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tandem.bus.LoadReport;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class EngineLoadTest {

  @Test
  void builtinEngineAnswerCarriesItsQueueAndKvPages() {
    JsonObject body = new JsonObject("""
        {"metrics": {"engine_prefill_time_sum": 0.5, "prompt_tokens_sum": 40, "running": 3,
         "waiting": 12, "parked": 1, "kv_pages_free": 20, "kv_pages_total": 128,
         "tokens_per_second": 12.5}}""");
    LoadReport r = EngineLoad.fromDump(1, 2, 1000, 5_000, body);
    assertEquals(new LoadReport(1, 2, 3, 12, 20L, 128L, 1000, 5_000, body.getJsonObject("metrics")), r);
  }

  @Test
  void mlcEngineAnswerHasCountersOnlySoTheQueueIsAbsent() {
    // reference §7: cumulative counters, last request stats, per-batch-size timings
    JsonObject body = new JsonObject("""
        {"metrics": {"engine_prefill_time_sum": 1.25, "engine_decode_time_sum": 3.5,
         "prompt_tokens_sum": 900, "completion_tokens_sum": 300, "decode_tokens_per_s": 85.7,
         "last_finished_request": {"ttft_s": 0.04},
         "decode_time_by_batch_size": {"mean{batch_size=4}": 0.011}}}""");
    LoadReport r = EngineLoad.fromDump(0, 0, 1000, 1, body);
    assertNull(r.running());
    assertNull(r.waiting());
    assertNull(r.kvPagesFree());
    assertFalse(r.hasQueue());
    assertEquals(900, r.metrics().getInteger("prompt_tokens_sum"));
  }

  @Test
  void gaugesThatAreNotWholeNonNegativeNumbersAreIgnored() {
    LoadReport r = EngineLoad.fromDump(0, 0, 1000, 1, new JsonObject(
        "{\"metrics\": {\"running\": \"3\", \"waiting\": -1, \"kv_pages_free\": 2.5}}"));
    assertNull(r.running());
    assertNull(r.waiting());
    assertNull(r.kvPagesFree());
  }

  @Test
  void anAnswerWithoutMetricsIsNoReport() {
    assertThrows(IllegalArgumentException.class,
        () -> EngineLoad.fromDump(0, 0, 1000, 1, new JsonObject("{\"object\": \"list\"}")));
  }
}
