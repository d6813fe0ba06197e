package dev.tandem.router.dispatch;

import static dev.tandem.config.RouterOptions.REQUEST_TOKEN_IDS;

import dev.tandem.bus.EngineStatus;
import dev.tandem.router.policy.EngineSnapshot;
import io.vertx.core.Future;

/**
 * MLC's "round-robin" mode done as it means: the whole request to the least-loaded READY engine,
 * ties rotated, with the engine's in-flight unit held until the attempt ends however it ends.
 */
public final class RoundRobinDispatcher implements Dispatcher {

  private final EngineCalls calls;

  RoundRobinDispatcher(EngineCalls calls) {
    this.calls = calls;
  }

  @Override
  public Future<Void> run(Attempt a) {
    EngineSnapshot pick = calls.policy.pickWhole(calls.registry.snapshot(), a.excluded()).orElse(null);
    if (pick == null) {
      return Future.failedFuture(calls.noEngine("usable"));
    }
    EngineStatus engine = calls.status(pick);
    return calls.registry.lease(engine.id()).during(() -> calls.generate(a, engine,
        EngineApi.COMPLETIONS, EngineBodies.generation(a, calls.options.get(REQUEST_TOKEN_IDS)),
        () -> {}));
  }

  @Override
  public boolean canServe() {
    return !calls.registry.ready().isEmpty();
  }
}
