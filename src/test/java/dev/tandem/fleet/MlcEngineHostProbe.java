package dev.tandem.fleet;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.config.EndpointConfig;
import io.vertx.core.Future;
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
    enginePid(vertx).onSuccess(pid -> {
      System.out.println("engine pid " + pid);
      System.out.flush();
    });
    Thread.currentThread().join();
  }

  /** Asks the EngineVerticle for its engine's pid until it has one (it is deploying at first). */
  private static Future<Long> enginePid(Vertx vertx) {
    return vertx.eventBus().<JsonObject>request(Addresses.DEFAULT.engineControl(0), "status")
        .map(status -> status.body().getLong("pid"))
        .recover(notDeployedYet -> Future.succeededFuture(null))
        .compose(pid -> pid != null ? Future.succeededFuture(pid)
            : vertx.timer(50).compose(t -> enginePid(vertx)));
  }

  private MlcEngineHostProbe() {}
}
