package dev.tandem.router.dispatch;

import dev.tandem.bus.EngineStatus;
import dev.tandem.router.policy.CacheAwarePolicy;
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
    int[] prompt = a.spec().promptIds();
    CacheAwarePolicy.Choice pick = calls.policy.chooseWhole(calls.registry.snapshot(), a.excluded(),
        prompt).orElse(null);
    if (pick == null) {
      return Future.failedFuture(calls.noEngine("usable", role -> true));
    }
    a.result().routing(calls.chosen("whole", pick));
    EngineStatus engine = calls.status(pick.engine());
    return calls.lease(engine.id()).during(() -> calls.generate(a, engine,
            EngineApi.COMPLETIONS, EngineBodies.generation(a, calls.requestTokenIds),
            () -> {}))
        .onSuccess(v -> {
          int cached = EngineCalls.cachedTokens(a.result().engineUsageExtra());
          if (cached >= 0) {
            calls.policy.observed(engine.id(), prompt, cached, false);
          }
        });
  }

  @Override
  public boolean canServe() {
    return !calls.registry.ready().isEmpty();
  }
}
