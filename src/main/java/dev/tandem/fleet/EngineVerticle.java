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
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns one engine child process: starts it, waits until it is ready, watches its health and
 * restarts it with back-off when it dies or stops answering. {@link #start()} completes when the
 * engine is READY, or fails with a message naming the engine, its exit code and its last output.
 *
 * <p>States: STARTING → READY ⇄ UNHEALTHY → RESTARTING → READY …; FAILED when the start or too
 * many restarts fail; STOPPED when stopped. Every state change is published as
 * {@link EngineStatus} JSON (plus {@code pid}, {@code device}, {@code logFile}) on
 * {@link Addresses#ENGINE_STATUS}. {@link Addresses#engineControl(int)} answers {@code status},
 * {@code restart} and {@code stop} (a string body, or JSON {@code {"action": ...}}).
 */
public final class EngineVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(EngineVerticle.class);
  /** One long-lived thread forks every engine: {@code --pdeathsig} is tied to the forking thread. */
  static final String LAUNCHER_POOL = "tandem-engine-launcher";
  private static final long READINESS_POLL_MS = 100;
  /** A line the builtin engine logs when it has joined the KV world (for the progress log). */
  private static final Pattern JOINED = Pattern.compile("(?i)\\bjoined\\b.*\\bworld\\b");

  private final EngineSpec spec;
  private WebClient http;
  private WorkerExecutor launcher;
  private MessageConsumer<Object> control;

  private EngineState state = EngineState.STARTING;
  private String detail = "starting";
  private int generation;
  private ChildProcess child;
  private long launchedAt;
  private long readySince;
  private Promise<Void> pendingReady;
  private long healthTimer = -1;
  private long restartTimer = -1;
  private int restarts;
  private int healthFailures;
  private Future<Void> shutdown;
  // Written by abort() from other threads; both volatile so that start() or abort() sees the other.
  private volatile Context ownContext;
  private volatile String abortReason;

  public EngineVerticle(EngineSpec spec) {
    this.spec = spec;
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
    http = WebClient.create(vertx, new WebClientOptions().setKeepAlive(false));
    launcher = vertx.createSharedWorkerExecutor(LAUNCHER_POOL, 1);
    control = vertx.eventBus().consumer(Addresses.engineControl(spec.endpoint().id()), this::onControl);
    changeState(EngineState.STARTING, "starting");
    return launch().andThen(ar -> {
      if (ar.succeeded()) {
        becomeReady();
      } else if (shutdown == null) {
        // Vert.x does not call stop() after a failed start: release what start() took.
        changeState(EngineState.FAILED, ar.cause().getMessage());
        release();
      }
    });
  }

  @Override
  public Future<?> stop() {
    return shutdown("stopped");
  }

  /** The current status as published. */
  public JsonObject statusJson() {
    EndpointConfig e = spec.endpoint();
    return new EngineStatus(e.id(), e.url(), e.role(), e.peStart(), e.numGpus(), state, generation,
        detail).toJson()
        .put("pid", child == null || !child.isAlive() ? null : child.pid())
        .put("device", spec.device())
        .put("logFile", spec.logFile().toString());
  }

  // ---- start, readiness ----

  private Future<Void> launch() {
    launchedAt = System.nanoTime();
    EngineCommand command = spec.command();
    AtomicBoolean joined = new AtomicBoolean();
    return launcher.<ChildProcess>executeBlocking(() -> ChildProcess.start(command.argv(),
            command.extraEnv(), spec.logFile(), line -> onOutputLine(line, joined)))
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
          return awaitReady(started)
              .recover(err -> killChild(started).transform(v -> Future.failedFuture(err)));
        });
  }

  private Future<Void> awaitReady(ChildProcess started) {
    Promise<Void> ready = Promise.promise();
    pendingReady = ready;
    long deadline = vertx.setTimer(spec.startupTimeout().toMillis(), id -> ready.tryFail(
        new EngineStartException(spec.describe() + " was not ready after "
            + seconds(spec.startupTimeout()) + " s (GET " + spec.readinessPath()
            + " never answered 200; log " + started.logFile() + "); last lines:\n"
            + started.tailText())));
    Future.fromCompletionStage(started.onExit(), context).onSuccess(code -> ready.tryFail(
        new EngineStartException(spec.describe() + " exited with code " + code
            + " before it was ready (log " + started.logFile() + "); last lines:\n"
            + started.tailText(), code)));
    pollReadiness(ready);
    return ready.future().andThen(ar -> {
      vertx.cancelTimer(deadline);
      pendingReady = null;
    });
  }

  private void pollReadiness(Promise<Void> ready) {
    if (ready.future().isComplete()) {
      return;
    }
    get(spec.readinessPath()).onComplete(ar -> {
      if (ready.future().isComplete()) {
        return;
      }
      if (ar.succeeded() && ar.result().statusCode() == 200) {
        ready.tryComplete();
      } else {
        vertx.setTimer(READINESS_POLL_MS, id -> pollReadiness(ready));
      }
    });
  }

  private void becomeReady() {
    readySince = System.nanoTime();
    healthFailures = 0;
    changeState(EngineState.READY, "ready in " + seconds(Duration.ofNanos(readySince - launchedAt))
        + " s");
    scheduleHealth();
  }

  /** On the output pump thread; reports the first "joined ... world" line of each launch. */
  private void onOutputLine(String line, AtomicBoolean joined) {
    if (!joined.get() && JOINED.matcher(line).find() && joined.compareAndSet(false, true)) {
      context.runOnContext(v -> LOG.info("{}: joined the world after {} s", spec.describe(),
          seconds(Duration.ofNanos(System.nanoTime() - launchedAt))));
    }
  }

  // ---- health ----

  private void scheduleHealth() {
    healthTimer = vertx.setTimer(spec.health().interval().toMillis(), id -> {
      healthTimer = -1;
      checkHealth();
    });
  }

  /** One probe; the next is scheduled only when this one has finished, so probes never overlap. */
  private void checkHealth() {
    ChildProcess probed = child;
    if (state != EngineState.READY || shutdown != null) {
      return;
    }
    get(spec.healthPath()).onComplete(ar -> {
      if (state != EngineState.READY || shutdown != null || probed != child) {
        return;
      }
      String failure = ar.failed() ? String.valueOf(ar.cause().getMessage())
          : ar.result().statusCode() == 200 ? null : "HTTP " + ar.result().statusCode();
      healthFailures = failure == null ? 0 : healthFailures + 1;
      if (healthFailures >= spec.health().failures()) {
        changeState(EngineState.UNHEALTHY, healthFailures + " health probes failed (last: "
            + failure + ")");
        scheduleRestart("unresponsive: " + failure);
      } else {
        scheduleHealth();
      }
    });
  }

  private void onChildExit(ChildProcess exited, int code) {
    if (exited != child || shutdown != null) {
      return;
    }
    if (state == EngineState.READY || state == EngineState.UNHEALTHY) {
      LOG.debug("{}: process {} exited with code {}", spec.describe(), exited.pid(), code);
      changeState(EngineState.UNHEALTHY, "process exited with code " + code);
      scheduleRestart("exited with code " + code);
    }
    // While STARTING or RESTARTING, awaitReady turns the exit into the start's failure.
  }

  // ---- restart ----

  private void scheduleRestart(String reason) {
    cancelTimers();
    if (readySince != 0 && spec.restart().isStable(Duration.ofNanos(System.nanoTime() - readySince))) {
      restarts = 0;
    }
    restarts++;
    if (!spec.restart().allows(restarts)) {
      killChild(child);
      changeState(EngineState.FAILED, "gave up after " + (restarts - 1) + " restarts; last: "
          + reason);
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
    generation++;
    readySince = 0;
    changeState(EngineState.RESTARTING, restarts == 0 ? reason
        : "restart " + restarts + " after: " + reason);
    ChildProcess old = child;
    Future<Integer> stopped = old == null ? Future.succeededFuture(0)
        : Future.fromCompletionStage(old.stop(spec.stopGrace()), context);
    stopped.compose(code -> launch()).onComplete(ar -> {
      if (shutdown != null) {
        return;
      }
      if (ar.succeeded()) {
        becomeReady();
      } else {
        changeState(EngineState.UNHEALTHY, ar.cause().getMessage());
        scheduleRestart("restart failed");
      }
    });
  }

  // ---- control, stop ----

  private void onControl(Message<Object> message) {
    Object body = message.body();
    String action = body instanceof JsonObject json ? json.getString("action") : String.valueOf(body);
    switch (action == null ? "" : action) {
      case "status" -> message.reply(statusJson());
      case "restart" -> {
        if (shutdown != null || state == EngineState.STARTING || state == EngineState.RESTARTING) {
          message.fail(409, spec.describe() + " is " + (shutdown != null ? "stopped" : state)
              + "; try again when it is READY, UNHEALTHY or FAILED");
          return;
        }
        cancelTimers();
        restarts = 0;
        restart("restart requested");
        message.reply(statusJson());
      }
      case "stop" -> shutdown("stop requested").onComplete(ar -> message.reply(statusJson()));
      default -> message.fail(400, "unknown engine control action '" + action
          + "' (known: status, restart, stop)");
    }
  }

  private Future<Void> shutdown(String reason) {
    if (shutdown != null) {
      return shutdown;
    }
    cancelTimers();
    Promise<Void> done = Promise.promise();
    shutdown = done.future();
    if (pendingReady != null) {
      pendingReady.tryFail(new EngineStartException(spec.describe() + " was stopped while starting"));
    }
    ChildProcess current = child;
    Future<Integer> stopped = current == null ? Future.succeededFuture(0)
        : Future.fromCompletionStage(current.stop(spec.stopGrace()), context);
    stopped.onComplete(ar -> {
      changeState(EngineState.STOPPED, reason);
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

  private void cancelTimers() {
    if (healthTimer >= 0) {
      vertx.cancelTimer(healthTimer);
      healthTimer = -1;
    }
    if (restartTimer >= 0) {
      vertx.cancelTimer(restartTimer);
      restartTimer = -1;
    }
  }

  private Future<HttpResponse<Buffer>> get(String path) {
    return http.get(spec.endpoint().port(), spec.endpoint().host(), path)
        .timeout(spec.health().timeout().toMillis()).send();
  }

  private void changeState(EngineState next, String why) {
    boolean changed = next != state || next == EngineState.RESTARTING;
    state = next;
    detail = why;
    if (!changed && next != EngineState.STARTING) {
      return;
    }
    switch (next) {
      case FAILED -> LOG.error("{}: {} ({})", spec.describe(), next, why);
      case UNHEALTHY -> LOG.warn("{}: {} ({})", spec.describe(), next, why);
      default -> LOG.info("{}: {} ({}{})", spec.describe(), next, why,
          child != null && child.isAlive() ? ", pid " + child.pid() : "");
    }
    vertx.eventBus().publish(Addresses.ENGINE_STATUS, statusJson());
  }

  private static String seconds(Duration d) {
    return String.format(java.util.Locale.ROOT, "%.1f", d.toMillis() / 1000.0);
  }
}
