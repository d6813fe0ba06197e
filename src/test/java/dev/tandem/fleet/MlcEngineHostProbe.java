package dev.tandem.fleet;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.config.EndpointConfig;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A router stand-in process for {@code MlcParentDeathIT}: deploys one EngineVerticle with the real
 * MLC profile (setpriv wrapper included) around a FAKE python ({@code args[0]}, a script that only
 * sleeps), prints {@code engine pid N} once the engine process runs, and waits to be killed.
 */
public final class MlcEngineHostProbe {
  public static void main(String[] args) throws Exception {
    Path fakePython = Path.of(args[0]);
    int port = Integer.parseInt(args[1]);
    Path log = Path.of(args[2]);
    EndpointConfig endpoint = new EndpointConfig(0, "127.0.0.1", port, 1, 0, EngineRole.DECODE);
    MlcProfile profile = new MlcProfile(fakePython.toString(), MlcProfile.parentDeathWrapper());
    EngineLaunch launch = new EngineLaunch("/models/none", null, endpoint, false, null,
        new WorldInit(new int[] {1, 2, 3}, 1));
    EngineSpec spec = new EngineSpec(endpoint, "cuda:0", profile.command(launch), "/v1/models",
        "/v1/models", log, Duration.ofMinutes(5), Duration.ofSeconds(1),
        new HealthPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), 3),
        new RestartPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), 0), Duration.ZERO);
    Vertx vertx = Vertx.vertx();
    vertx.deployVerticle(new EngineVerticle(spec)); // never READY: the fake python only sleeps
    while (true) {
      JsonObject status;
      try {
        status = vertx.eventBus().<JsonObject>request(Addresses.engineControl(0), "status")
            .toCompletionStage().toCompletableFuture().get().body();
      } catch (java.util.concurrent.ExecutionException notDeployedYet) {
        Thread.sleep(50);
        continue;
      }
      if (status.getLong("pid") != null) {
        System.out.println("engine pid " + status.getLong("pid"));
        System.out.flush();
        break;
      }
      Thread.sleep(50);
    }
    Thread.currentThread().join();
  }

  private MlcEngineHostProbe() {}
}
