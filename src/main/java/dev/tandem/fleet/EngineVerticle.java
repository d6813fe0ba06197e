package dev.tandem.fleet;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.config.EndpointConfig;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns one engine child process: starts it, waits until it is ready, watches its health, reports
 * its load and restarts it with back-off when it dies or stops answering. {@link #start()}
 * completes when the engine is READY, or fails with a message naming the engine, its exit code and
 * its last output.
 *
 * <p>The states and their allowed transitions are {@link EngineLifecycle}'s table; every change
 * goes through {@link #moveTo}, which publishes {@link EngineStatus} JSON (plus {@code pid},
 * {@code device}, {@code logFile}) on {@link Addresses#engineStatus()} and runs the health loop and
 * the {@link LoadReporter} exactly while the engine is READY. {@link Addresses#engineControl(int)}
 * answers {@code status}, {@code restart} and {@code stop} (a string body, or JSON
 * {@code {"action": ...}}), and {@code {"action": "rejoin", "uid", "npes", "epoch", "drainMs"}}
 * from the supervisor when it re-forms a world that admits no late member.
 */
public final class EngineVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(EngineVerticle.class);
  /** One long-lived thread forks every engine: {@code --pdeathsig} is tied to the forking thread. */
  static final String LAUNCHER_POOL = "tandem-engine-launcher";

  private final EngineSpec spec;
  private final EngineLifecycle lifecycle = new EngineLifecycle();
  /** The world the current command joins (a re-form replaces it); null for none. */
  private EngineStatus.World world;
  /** The spec's command, with the world of the last re-form. */
  private EngineCommand command;
  private WebClient http;
  private WorkerExecutor launcher;
  private MessageConsumer<Object> control;

  private ChildProcess child;
  private long launchedAt;
  private long readySince;
  private ReadinessWait pendingReady;
  /** Health loop and load reports: exactly while READY (started and stopped by {@link #moveTo}). */
  private EngineWatch watch;
  private long restartTimer = -1;
  private int restarts;
  private Future<Void> shutdown;
  // Written by abort() from other threads; both volatile so that start() or abort() sees the other.
  private volatile Context ownContext;
  private volatile String abortReason;

  public EngineVerticle(EngineSpec spec) {
    this.spec = spec;
    this.world = spec.world();
    this.command = spec.command();
  }

  public EngineSpec spec() {
    return spec;
  }

  @Override
  public void init(Vertx vertx, Context context) {
    super.init(vertx, context);
    ownContext = context;
  }

  /**
   * Stops this engine from any thread, also before or while it starts (its start then fails).
   * The supervisor uses it when another engine of the fleet failed to start.
   */
  public void abort(String reason) {
    abortReason = reason;
    Context ctx = ownContext;
    if (ctx != null) {
      ctx.runOnContext(v -> shutdown(reason));
    }
  }

  @Override
  public Future<?> start() {
    if (abortReason != null) {
      return Future.failedFuture(new EngineStartException(spec.describe() + " was not started: "
          + abortReason));
    }
    http = FleetSecretCalls.client(vertx, command);
    launcher = vertx.createSharedWorkerExecutor(LAUNCHER_POOL, 1);
    control = vertx.eventBus().consumer(spec.bus().engineControl(spec.endpoint().id()), this::onControl);
    announce();
    return launch().andThen(ar -> {
      if (ar.succeeded()) {
        becomeReady();
      } else if (shutdown == null) {
        // Vert.x does not call stop() after a failed start: release what start() took.
        moveTo(EngineState.FAILED, ar.cause().getMessage());
        release();
      }
    });
  }

  @Override
  public Future<?> stop() {
    return shutdown("stopped");
  }

  /** Whether the engine still runs or will run again (not STOPPED, not given up as FAILED). */
  public boolean live() {
    return shutdown == null && lifecycle.state() != EngineState.FAILED
        && lifecycle.state() != EngineState.STOPPED;
  }

  /** The current status as published. */
  public JsonObject statusJson() {
    EndpointConfig e = spec.endpoint();
    return new EngineStatus(e.id(), e.url(), e.role(), e.peStart(), e.numGpus(),
        lifecycle.state(), lifecycle.generation(), lifecycle.detail(), spec.kind(), world).toJson()
        .put("pid", child == null || !child.isAlive() ? null : child.pid())
        .put("device", spec.device())
        .put("logFile", spec.logFile().toString());
  }

  // ---- start, readiness ----

  private Future<Void> launch() {
    launchedAt = System.nanoTime();
    EngineCommand command = this.command;
    LaunchLog progress = new LaunchLog(context, spec.describe(), launchedAt);
    return launcher.<ChildProcess>executeBlocking(() -> ChildProcess.start(command.argv(),
            command.extraEnv(), spec.logFile(), progress))
        .recover(err -> Future.failedFuture(new EngineStartException(spec.describe()
            + " could not be started: " + err.getMessage())))
        .compose(started -> {
          child = started;
          Future.fromCompletionStage(started.onExit(), context)
              .onSuccess(code -> onChildExit(started, code));
          if (shutdown != null) {
            return killChild(started).transform(v -> Future.failedFuture(
                new EngineStartException(spec.describe() + " was stopped while starting")));
          }
          pendingReady = ReadinessWait.start(vertx, context, spec, started, this::get);
          return pendingReady.future()
              .andThen(ar -> pendingReady = null)
              .recover(err -> killChild(started).transform(v -> Future.failedFuture(err)));
        });
  }

  private void becomeReady() {
    readySince = System.nanoTime();
    moveTo(EngineState.READY, "ready in "
        + LaunchLog.seconds(Duration.ofNanos(readySince - launchedAt)) + " s");
  }

  // ---- while READY: health and load ----

  private void startWatching() {
    watch = EngineWatch.start(vertx, http, spec, lifecycle.generation(), failure -> {
      moveTo(EngineState.UNHEALTHY, failure);
      restartOrAwaitReform("unresponsive: " + failure);
    });
  }

  private void stopWatching() {
    if (watch != null) {
      watch.stop();
      watch = null;
    }
  }

  private void onChildExit(ChildProcess exited, int code) {
    if (exited != child || shutdown != null) {
      return;
    }
    EngineState state = lifecycle.state();
    if (state == EngineState.READY || state == EngineState.UNHEALTHY) {
      LOG.debug("{}: process {} exited with code {}", spec.describe(), exited.pid(), code);
      moveTo(EngineState.UNHEALTHY, "process exited with code " + code);
      restartOrAwaitReform("exited with code " + code);
    }
    // While STARTING or RESTARTING, the readiness wait turns the exit into the start's failure.
  }

  // ---- restart ----

  /** A fixed world admits no late member: its engine waits for the supervisor's re-form. */
  private void restartOrAwaitReform(String reason) {
    if (world != null && world.fixed()) {
      moveTo(EngineState.UNHEALTHY, reason + "; its world admits no late member: waiting for the"
          + " supervisor to re-form it");
      return;
    }
    scheduleRestart(reason);
  }

  /**
   * Restarts the engine in a re-formed world: out of rotation at once (RESTARTING), its requests
   * may finish (what is left fails over in the router), then a new process joins the new world.
   * Answers at once: the world forms only once every engine was told, so nobody waits here.
   */
  private void rejoin(Message<Object> message, WorldRejoin order) {
    if (shutdown != null || !EngineLifecycle.allows(lifecycle.state(), EngineState.RESTARTING)) {
      message.fail(409, spec.describe() + " is " + (shutdown != null ? "stopped"
          : lifecycle.state()) + "; it cannot rejoin a world now");
      return;
    }
    cancelRestart();
    restarts = 0;
    readySince = 0;
    moveTo(EngineState.RESTARTING, "re-forming the world (epoch " + order.epoch() + ")");
    message.reply(statusJson());
    relaunch(order.drainMs(), () -> {
      command = command.withEnv(order.env(spec.endpoint().peStart()));
      world = new EngineStatus.World(order.epoch(), true);
    }).onComplete(ar -> {
      if (shutdown == null && ar.succeeded()) {
        becomeReady();
      } else if (shutdown == null) {
        moveTo(EngineState.UNHEALTHY, "could not rejoin the world: " + ar.cause().getMessage());
      }
    });
  }

  private void scheduleRestart(String reason) {
    cancelRestart();
    if (readySince != 0 && spec.restart().isStable(Duration.ofNanos(System.nanoTime() - readySince))) {
      restarts = 0;
    }
    restarts++;
    if (!spec.restart().allows(restarts)) {
      killChild(child);
      moveTo(EngineState.FAILED, "gave up after " + (restarts - 1) + " restarts; last: " + reason);
      return;
    }
    restartTimer = vertx.setTimer(spec.restart().delay(restarts).toMillis(), id -> {
      restartTimer = -1;
      restart(reason);
    });
  }

  private void restart(String reason) {
    if (shutdown != null) {
      return;
    }
    readySince = 0;
    moveTo(EngineState.RESTARTING, restarts == 0 ? reason
        : "restart " + restarts + " after: " + reason);
    relaunch(0, () -> { }).onComplete(ar -> {
      if (shutdown == null && ar.succeeded()) {
        becomeReady();
      } else if (shutdown == null) {
        moveTo(EngineState.UNHEALTHY, ar.cause().getMessage());
        scheduleRestart("restart failed");
      }
    });
  }

  /** Stops the process (after at most {@code drainMs} for its requests) and launches a new one. */
  private Future<Void> relaunch(long drainMs, Runnable beforeLaunch) {
    ChildProcess old = child;
    return EngineDrain.drain(vertx, http, spec, old == null || !old.isAlive() ? 0 : drainMs)
        .compose(v -> old == null ? Future.succeededFuture(0)
            : Future.fromCompletionStage(old.stop(spec.stopGrace()), context))
        .compose(code -> {
          if (shutdown != null) {
            return Future.failedFuture("stopped");
          }
          beforeLaunch.run();
          return launch();
        });
  }

  private void cancelRestart() {
    if (restartTimer >= 0) {
      vertx.cancelTimer(restartTimer);
      restartTimer = -1;
    }
  }

  // ---- control, stop ----

  private void onControl(Message<Object> message) {
    Object body = message.body();
    String action = body instanceof JsonObject json ? json.getString("action") : String.valueOf(body);
    switch (action == null ? "" : action) {
      case WorldRejoin.ACTION -> rejoin(message, WorldRejoin.fromJson((JsonObject) body));
      case "status" -> message.reply(statusJson());
      case "restart" -> {
        if (shutdown != null || !EngineLifecycle.allows(lifecycle.state(), EngineState.RESTARTING)) {
          message.fail(409, spec.describe() + " is " + (shutdown != null ? "stopped"
              : lifecycle.state()) + "; try again when it is READY, UNHEALTHY or FAILED");
          return;
        }
        cancelRestart();
        restarts = 0;
        restart("restart requested");
        message.reply(statusJson());
      }
      case "stop" -> shutdown("stop requested").onComplete(ar -> message.reply(statusJson()));
      default -> message.fail(400, "unknown engine control action '" + action
          + "' (known: status, restart, stop, rejoin)");
    }
  }

  /** Idempotent: the first call stops the process; every call returns the same future. */
  private Future<Void> shutdown(String reason) {
    if (shutdown != null) {
      return shutdown;
    }
    stopWatching();
    cancelRestart();
    Promise<Void> done = Promise.promise();
    shutdown = done.future();
    if (pendingReady != null) {
      pendingReady.cancel(new EngineStartException(spec.describe() + " was stopped while starting"));
    }
    ChildProcess current = child;
    Future<Integer> stopped = current == null ? Future.succeededFuture(0)
        : Future.fromCompletionStage(current.stop(spec.stopGrace()), context);
    stopped.onComplete(ar -> {
      moveTo(EngineState.STOPPED, reason);
      release();
      done.complete();
    });
    return shutdown;
  }

  /** The control consumer, HTTP client and launcher thread (each null until start() made it). */
  private void release() {
    if (control != null) {
      control.unregister();
      control = null;
    }
    if (http != null) {
      http.close();
      http = null;
    }
    if (launcher != null) {
      launcher.close();
      launcher = null;
    }
  }

  private Future<Integer> killChild(ChildProcess target) {
    return target == null ? Future.succeededFuture(0)
        : Future.fromCompletionStage(target.kill(), context);
  }

  private Future<HttpResponse<Buffer>> get(String path) {
    return http.get(spec.endpoint().port(), spec.endpoint().host(), path)
        .timeout(spec.health().timeout().toMillis()).send();
  }

  // ---- the one place the state changes ----

  /** Publishes the initial STARTING state (the lifecycle starts there). */
  private void announce() {
    LOG.info("{}: {} ({})", spec.describe(), lifecycle.state(), lifecycle.detail());
    vertx.eventBus().publish(spec.bus().engineStatus(), statusJson());
  }

  /**
   * Performs one transition of {@link EngineLifecycle} (an illegal one throws: a bug), keeps the
   * health and load loops running exactly while READY, and logs and publishes a changed state.
   */
  private void moveTo(EngineState next, String why) {
    EngineState from = lifecycle.state();
    boolean changed = lifecycle.move(next, why);
    if (from == EngineState.READY && next != EngineState.READY) {
      stopWatching();
    }
    if (!changed) {
      return;
    }
    switch (next) {
      case FAILED -> LOG.error("{}: {} ({})", spec.describe(), next, why);
      case UNHEALTHY -> LOG.warn("{}: {} ({})", spec.describe(), next, why);
      default -> LOG.info("{}: {} ({}{})", spec.describe(), next, why,
          child != null && child.isAlive() ? ", pid " + child.pid() : "");
    }
    vertx.eventBus().publish(spec.bus().engineStatus(), statusJson());
    if (next == EngineState.READY) {
      startWatching(); // after the READY status, so that load reports follow it on the bus
    }
  }
}
