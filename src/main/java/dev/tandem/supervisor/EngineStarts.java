package dev.tandem.supervisor;

import static dev.tandem.config.RouterConfig.ENGINE;
import static dev.tandem.config.RouterConfig.LOG_DIR;
import static dev.tandem.config.RouterConfig.STARTUP_TIMEOUT;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;

import dev.tandem.config.RouterConfig;
import dev.tandem.fleet.EngineSpec;
import dev.tandem.fleet.EngineVerticle;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fleet's engines started all at once, as {@link SupervisorVerticle#start()} does it: an
 * {@link EngineVerticle} here for every local endpoint, every other one handed to its node, one
 * deadline for all (a world forms only when every member has joined). When one fails, the others
 * are stopped (they would wait for a world that cannot form). Whatever was deployed is recorded,
 * failed start or not, so that the supervisor's tear-down stops it.
 */
final class EngineStarts {
  private static final Logger LOG = LoggerFactory.getLogger(EngineStarts.class);
  /** Beyond the engines' own start-up deadline, for a start that hangs before the engines' timers. */
  private static final Duration DEADLINE_MARGIN = Duration.ofSeconds(10);

  private EngineStarts() {}

  /**
   * Starts {@code specs}; the ones in {@code remoteIds} on their nodes through {@code remote}.
   * Each local deployment's id is added to {@code deployed} and every engine told to
   * {@code admin}; fails (the rest stopped) when any fails or the deadline passes.
   */
  static Future<Void> deploy(Vertx vertx, RouterConfig config, List<EngineSpec> specs,
      Set<Integer> remoteIds, RemoteEngines remote, FleetAdmin admin, List<String> deployed) {
    List<EngineVerticle> engines = specs.stream()
        .filter(s -> !remoteIds.contains(s.endpoint().id())).map(EngineVerticle::new).toList();
    List<EngineSpec> onNodes = specs.stream().filter(s -> remoteIds.contains(s.endpoint().id()))
        .toList();
    Path logDir = Path.of(config.get(LOG_DIR));
    LOG.info("starting {} {} engine(s) in {} mode, logs in {}{}", specs.size(),
        config.get(ENGINE).wireName(), config.get(ROUTER_MODE).wireName(), logDir.toAbsolutePath(),
        onNodes.isEmpty() ? "" : " (" + onNodes.size() + " on tandem nodes, logs in theirs)");
    List<Future<String>> deployments = engines.stream().map(vertx::deployVerticle).toList();
    List<Future<Void>> remoteStarts = onNodes.stream().map(s -> remote.start(s)).toList();
    List<Future<?>> every = new ArrayList<>(deployments);
    every.addAll(remoteStarts);
    long deadline = vertx.setTimer(config.get(STARTUP_TIMEOUT).plus(DEADLINE_MARGIN).toMillis(),
        id -> {
          engines.forEach(e -> e.abort("the fleet's start-up deadline passed"));
          if (remote != null) {
            remote.abort("the fleet's start-up deadline passed");
          }
        });
    return Future.all(every).transform(all -> {
      vertx.cancelTimer(deadline);
      if (all.failed()) {
        // One engine failed: the others would wait for a world that cannot form. Stop them now.
        for (int i = 0; i < engines.size(); i++) {
          if (!deployments.get(i).failed()) {
            engines.get(i).abort("another engine of the fleet failed to start");
          }
        }
        if (remote != null) {
          remote.abort("another engine of the fleet failed to start");
        }
      }
      return Future.join(every).transform(joined -> {
        for (int i = 0; i < deployments.size(); i++) {
          if (deployments.get(i).succeeded()) {
            deployed.add(deployments.get(i).result());
            admin.started(engines.get(i), deployments.get(i).result());
          }
        }
        for (EngineSpec spec : onNodes) {
          admin.started(spec.endpoint(), null);
        }
        return all.failed() ? Future.failedFuture(all.cause()) : Future.<Void>succeededFuture();
      });
    });
  }
}
