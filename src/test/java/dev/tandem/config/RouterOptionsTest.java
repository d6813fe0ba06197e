package dev.tandem.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.router.api.ModelInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RouterOptionsTest {

  @Test
  void jsonRoundTripAndDefaults() {
    RouterOptions o = new RouterOptions().setMode(RouterMode.ROUND_ROBIN).setPort(9000)
        .setPdBalanceFactor(0.25).setChunkIdleTimeoutMs(1234).setBusyWaitMs(0);
    assertEquals(o.toJson(), new RouterOptions(o.toJson()).toJson());
    RouterOptions d = new RouterOptions(new io.vertx.core.json.JsonObject());
    assertEquals(RouterMode.DISAGG, d.getMode());
    assertEquals(8000, d.getPort());
    assertEquals("round-robin", o.toJson().getString("mode"));
  }

  @Test
  void badValuesAreNamed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new RouterOptions().setPdBalanceFactor(1.0).validate());
    assertTrue(e.getMessage().contains("pdBalanceFactor"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new RouterOptions().setMaxEngineAttempts(0).validate());
    assertThrows(IllegalArgumentException.class, () -> new RouterOptions().setFirstChunkTimeoutMs(0).validate());
  }

  @Test
  void modelLimitsFollowTheEnginesOverrides(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("config.json"), "{\"max_position_embeddings\": 4096, \"vocab_size\": 1024}");
    assertEquals(new ModelInfo("m", 4096, 1024), ModelInfo.read(dir, "m", null));
    assertEquals(128, ModelInfo.read(dir, "m", "max_total_seq_length=130;prefill_chunk_size=64").contextLength());
    assertEquals(512, ModelInfo.read(dir, "m", "context_window_size=512").contextLength());
    assertEquals(new ModelInfo("m", 0, 0), ModelInfo.read(dir.resolve("absent"), "m", null));
  }
}
