package dev.tandem.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineStatus;
import dev.tandem.bus.NodeAnnouncement;
import dev.tandem.config.EndpointConfig;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the supervisor sends a node, and what a node says of itself, survive the bus. */
class EngineSpecJsonTest {

  @Test
  void aSpecSurvivesJsonWithItsLogInTheNodesFolder() {
    EngineSpec spec = new EngineSpec(new EndpointConfig(3, "gpu-host-2", 8083, 2, 4,
        EngineRole.DECODE), "cuda:4",
        new EngineCommand(List.of("python", "-m", "mlc_llm", "serve", "m"),
            Map.of("MLC_NVSHMEM_INIT_CONFIG_JSON_STR", "{\"uid\":[1,2],\"npes\":6,\"pe_start\":4}")),
        "/v1/models", "/health", Path.of("/var/log/tandem/engine-3.log"), Duration.ofSeconds(120),
        Duration.ofSeconds(10), new HealthPolicy(Duration.ofMillis(500), Duration.ofSeconds(2), 3),
        new RestartPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30), 5),
        Duration.ofMillis(250), EngineStatus.MLC, new EngineStatus.World(2, true),
        Addresses.of("blue"));
    JsonObject json = new JsonObject(EngineSpecJson.toJson(spec).encode());
    EngineSpec back = EngineSpecJson.fromJson(json, Path.of("/srv/node-logs"));
    assertEquals(spec.withCommand(spec.command()).endpoint(), back.endpoint());
    assertEquals(Path.of("/srv/node-logs/engine-3.log"), back.logFile());
    EngineSpec expected = new EngineSpec(spec.endpoint(), spec.device(), spec.command(),
        spec.readinessPath(), spec.healthPath(), Path.of("/srv/node-logs/engine-3.log"),
        spec.startupTimeout(), spec.stopGrace(), spec.health(), spec.restart(),
        spec.loadReportInterval(), spec.kind(), spec.world(), spec.bus());
    assertEquals(expected, back);
  }

  @Test
  void aBodyThatIsNoSpecIsRefusedNamingWhatIsWrong() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> EngineSpecJson.fromJson(new JsonObject().put("endpoint", new JsonObject()),
            Path.of("logs")));
    assertTrue(e.getMessage().startsWith("not an engine spec"), e.getMessage());
  }

  @Test
  void aNodeAnnouncementSurvivesJson() {
    NodeAnnouncement node = new NodeAnnouncement("node-1a2b", List.of("10.0.0.7", "gpu-7"), 4242,
        List.of(1, 3));
    NodeAnnouncement back = NodeAnnouncement.fromJson(new JsonObject(node.toJson().encode()));
    assertEquals(node, back);
    assertTrue(back.serves("gpu-7"));
    assertTrue(!back.serves("gpu-8"));
  }
}
