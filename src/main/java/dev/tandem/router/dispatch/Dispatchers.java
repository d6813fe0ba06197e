package dev.tandem.router.dispatch;

import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.policy.CacheAwarePolicy;
import dev.tandem.router.policy.PdSplitPolicy;
import dev.tandem.router.policy.RoutePolicy;
import dev.tandem.router.registry.EngineRegistry;
import dev.tandem.router.upstream.EngineClient;

/** Builds the dispatcher of the configured mode. */
public final class Dispatchers {

  private Dispatchers() {}

  public static Dispatcher create(RouterOptions options, EngineRegistry registry,
      EngineClient client, RouterMetrics metrics) {
    RoutePolicy policy = new RoutePolicy(RoutePolicy.Kind.parse(options.getPolicy()),
        new CacheAwarePolicy.Options(options.getCacheThreshold(), options.getBalanceAbs(),
            options.getBalanceRel()));
    PdSplitPolicy split = new PdSplitPolicy(new PdSplitPolicy.Options(
        PdSplitPolicy.Mode.parse(options.getPdPolicy()), options.getPdBalanceFactor(),
        options.getPdShortPrompt(), options.getPdPrefillBusy(),
        PdSplitPolicy.DEFAULT_MAX_BALANCE_FACTOR));
    EngineCalls calls = new EngineCalls(registry, policy, split, client, options, metrics);
    return switch (options.getMode()) {
      case ROUND_ROBIN -> new RoundRobinDispatcher(calls);
      case DISAGG -> new DisaggregatedDispatcher(calls);
    };
  }
}
