package dev.tandem.config;

import static dev.tandem.config.RouterOptions.BUSY_WAIT;
import static dev.tandem.config.RouterOptions.CHUNK_IDLE_TIMEOUT;
import static dev.tandem.config.RouterOptions.FIRST_CHUNK_TIMEOUT;
import static dev.tandem.config.RouterOptions.MAX_ENGINE_ATTEMPTS;
import static dev.tandem.config.RouterOptions.PD_BALANCE_FACTOR;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.router.api.ModelInfo;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RouterOptionsTest {

  @Test
  void jsonRoundTripAndDefaults() {
    RouterOptions o = new RouterOptions().set(ROUTER_MODE, RouterMode.ROUND_ROBIN).set(ROUTER_PORT, 9000)
        .set(PD_BALANCE_FACTOR, 0.25).set(CHUNK_IDLE_TIMEOUT, Duration.ofMillis(1234))
        .set(BUSY_WAIT, Duration.ZERO);
    assertEquals(o.toJson(), new RouterOptions(o.toJson()).toJson());
    assertEquals(1234, o.toJson().getLong("chunkIdleTimeoutMs"));
    RouterOptions d = new RouterOptions(new JsonObject());
    assertEquals(RouterMode.DISAGG, d.get(ROUTER_MODE));
    assertEquals(8000, d.get(ROUTER_PORT));
    assertEquals(Duration.ofSeconds(120), d.get(FIRST_CHUNK_TIMEOUT));
    assertEquals("round-robin", o.toJson().getString("routerMode"));
  }

  @Test
  void badValuesAreRejectedWhenSetAndNamed() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> new RouterOptions().set(PD_BALANCE_FACTOR, 1.0));
    assertTrue(e.getMessage().startsWith("--pd-balance-factor must be in [0, 1)"), e.getMessage());
    assertThrows(ConfigException.class, () -> new RouterOptions().set(MAX_ENGINE_ATTEMPTS, 0));
    assertThrows(ConfigException.class, () -> new RouterOptions().set(FIRST_CHUNK_TIMEOUT, Duration.ZERO));
    assertThrows(ConfigException.class, () -> new RouterOptions().set(ROUTER_PORT, 70000));
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
