package dev.tandem.engine.server;

import static dev.tandem.engine.server.MicroServingCalls.body;
import static dev.tandem.engine.server.MicroServingCalls.prompt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.world.WorldRoot;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TinyModel;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 3, "what must be shown" 4, with processes: three engines started one after another, each
 * only once the previous one is already waiting in the world join and at least 2 s later, all join
 * one world (run by a root in this JVM), none serves before the world is whole, and then every PE
 * can ship KV to every other (a chain around the ring). The dead-root case is
 * LaunchFidelityIT#deadWorldRootFailsWithAClearMessage.
 */
class WorldStartupIT {
  static final int ENGINES = 3;


  @Test
  void enginesStartedSecondsApartAllJoinAndEveryPeReachesEveryOther() throws Exception {
    Path model = TinyModel.shared();
    List<EngineProcess> engines = new ArrayList<>();
    try (WorldRoot root = WorldRoot.start("127.0.0.1", ENGINES)) {
      long t0 = System.nanoTime();
      for (int pe = 0; pe < ENGINES; pe++) {
        for (EngineProcess earlier : engines) {
          assertTrue(earlier.process().isAlive(), earlier.log());
          assertThrows(IOException.class, () -> earlier.http().get("/v1/models"),
              "an engine serves before its world formed");
        }
        int port = FreePorts.one();
        EngineProcess e = EngineProcess.launch(EngineProcess.serveCommand(model, port,
            "--enable-debug", "--mode", "server", "--world-join-timeout", "180",
            "--overrides", "max_num_sequence=4;max_total_seq_length=4096"),
            Map.of("MLC_NVSHMEM_INIT_CONFIG_JSON_STR", MicroServingCalls.worldEnv(root, pe)), port);
        engines.add(e);
        if (pe < ENGINES - 1) {
          awaitLog(e, "waiting for the world to form", Duration.ofSeconds(120));
          Thread.sleep(2000);
        }
      }
      long lastLaunchedMs = (System.nanoTime() - t0) / 1_000_000;
      for (EngineProcess e : engines) {
        e.awaitReady(Duration.ofSeconds(120));
        assertTrue(e.log().contains("joined the KV world as PE"), e.log());
      }
      long allReadyMs = (System.nanoTime() - t0) / 1_000_000;
      System.out.printf("WorldStartupIT: last of %d engines launched at %d ms, all ready at %d ms%n",
          ENGINES, lastLaunchedMs, allReadyMs);

      // every member has the whole PE table: PE i prefills for PE i+1, around the ring
      for (int pe = 0; pe < ENGINES; pe++) {
        EngineProcess prefill = engines.get(pe);
        int decodeRank = (pe + 1) % ENGINES;
        EngineProcess decode = engines.get(decodeRank);
        JsonArray prompt = prompt(50, 40 + pe);
        JsonObject b = body(prompt, "cmpl-ring-" + pe, 4, false, 1, false);
        MicroServingCalls.Chain chain = MicroServingCalls.chain(prefill, decode, decodeRank, b, -1);
        assertTrue(chain.sent());
        assertEquals(49, chain.answer().getJsonObject("extra").getInteger("kv_received_tokens"));
        JsonObject colocated = MicroServingCalls.read(prefill.http().post("/v1/completions",
            body(prompt, null, 4, false, 1, false)), false);
        assertEquals(MicroServingCalls.comparable(colocated), MicroServingCalls.comparable(chain.answer()),
            "PE " + pe + " -> PE " + decodeRank);
      }
    } finally {
      engines.forEach(EngineProcess::close);
    }
  }

  private static void awaitLog(EngineProcess e, String text, Duration limit) throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!e.log().contains(text)) {
      if (!e.process().isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("engine never logged \"" + text + "\":\n" + e.log());
      }
      Thread.sleep(100);
    }
  }
}
