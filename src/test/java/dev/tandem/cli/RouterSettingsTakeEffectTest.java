package dev.tandem.cli;

import static dev.tandem.router.testing.FaultInjectingFakeEngine.Behavior.Kind.HANG;
import static dev.tandem.router.testing.RouterHarness.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.config.RouterConfig;
import dev.tandem.router.api.ModelInfo;
import dev.tandem.router.testing.FaultInjectingFakeEngine;
import dev.tandem.router.testing.FaultInjectingFakeEngine.Behavior;
import dev.tandem.router.testing.RouterHarness;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TinyModel;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A first-chunk timeout and an engine-attempt limit, set in {@code conf/router.json} (as the Vert.x
 * launcher's {@code -conf} reads it) or on the {@code tandem router} command line, reach the
 * router verticle and change what it does: in front of two fake engines that hang on every
 * request, a completion fails with 504 after exactly the configured number of attempts, each
 * given up after the configured time (the defaults would be 3 attempts of 120 s each).
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class RouterSettingsTakeEffectTest {
  private static final long TIMEOUT_MS = 300;
  private static final int ATTEMPTS = 2;

  @TempDir Path dir;
  private FaultInjectingFakeEngine hangs1;
  private FaultInjectingFakeEngine hangs2;
  private RouterHarness router;

  @BeforeEach
  void twoEnginesThatHang(Vertx vertx, VertxTestContext ctx) {
    hangs1 = new FaultInjectingFakeEngine(vertx);
    hangs2 = new FaultInjectingFakeEngine(vertx);
    for (int i = 0; i < 4; i++) {
      hangs1.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(HANG));
      hangs2.script(FaultInjectingFakeEngine.GENERATION, Behavior.of(HANG));
    }
    Future.all(hangs1.start(), hangs2.start()).onComplete(ctx.succeedingThenComplete());
  }

  @AfterEach
  void close(VertxTestContext ctx) {
    if (router == null) {
      ctx.completeNow();
    } else {
      router.close().onComplete(ctx.succeedingThenComplete());
    }
  }

  @Test
  void fromConfRouterJson(Vertx vertx, VertxTestContext test) throws IOException {
    JsonObject json = new JsonObject(Files.readString(Path.of("conf/router.json")))
        .put("routerMode", "round-robin")
        .put("firstChunkTimeoutMs", TIMEOUT_MS)
        .put("maxEngineAttempts", ATTEMPTS);
    RouterConfig config = RouterConfig.fromJson(json);
    expectTimeoutsAfterConfiguredAttempts(vertx, test, config);
  }

  @Test
  void fromTheCommandLineOverTheConfigFile(Vertx vertx, VertxTestContext test) throws IOException {
    // the file says 5 attempts of 60 s; the flags win
    Path model = TinyModel.stub(dir.resolve("model"));
    Path file = dir.resolve("router.json");
    Files.writeString(file, new JsonObject().put("firstChunkTimeoutMs", 60_000)
        .put("maxEngineAttempts", 5).encode());
    int[] ports = FreePorts.of(2);
    RouterConfig config = parse("router", model.toString(), "--config", file.toString(),
        "--router-mode", "round-robin", "--endpoint-ports", Integer.toString(ports[0]),
        Integer.toString(ports[1]), "--first-chunk-timeout", TIMEOUT_MS + "ms",
        "--max-engine-attempts", Integer.toString(ATTEMPTS));
    expectTimeoutsAfterConfiguredAttempts(vertx, test, config);
  }

  /** The configuration {@code tandem router} would run with, parsed as it parses it. */
  private static RouterConfig parse(String... args) {
    CommandLine.ParseResult parsed = new CommandLine(new Tandem()).parseArgs(args);
    RouterCommand command = (RouterCommand) parsed.subcommand().commandSpec().userObject();
    return command.toConfig();
  }

  private void expectTimeoutsAfterConfiguredAttempts(Vertx vertx, VertxTestContext test,
      RouterConfig config) {
    JsonObject request = new JsonObject().put("prompt", new JsonArray().add(3).add(14))
        .put("max_tokens", 4).put("temperature", 0);
    long[] start = new long[1];
    RouterHarness.start(vertx, config.routerOptions(), new ModelInfo("fake", 4096, 1000), null)
        .compose(started -> {
          router = started;
          return router.announce(status(1, hangs1.url(), EngineRole.BOTH, EngineState.READY, 0),
              status(2, hangs2.url(), EngineRole.BOTH, EngineState.READY, 0));
        })
        .compose(v -> {
          start[0] = System.nanoTime();
          return router.post("/v1/completions", request);
        })
        .onComplete(test.succeeding(answer -> test.verify(() -> {
          long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start[0]);
          assertEquals(504, answer.status(), answer.body().toString());
          assertEquals("engine_timeout", answer.json().getJsonObject("error").getString("code"));
          int attempts = hangs1.received("/v1/completions").size()
              + hangs2.received("/v1/completions").size();
          assertEquals(ATTEMPTS, attempts, "engine attempts");
          assertTrue(elapsedMs >= ATTEMPTS * TIMEOUT_MS - 50, "each attempt waited its timeout: "
              + elapsedMs + " ms");
          assertTrue(elapsedMs < 10_000, "the configured timeout, not the default: " + elapsedMs
              + " ms");
          test.completeNow();
        })));
  }
}
