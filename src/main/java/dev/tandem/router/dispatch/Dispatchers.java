package dev.tandem.router.dispatch;

import static dev.tandem.config.RouterOptions.BALANCE_ABS;
import static dev.tandem.config.RouterOptions.BALANCE_REL;
import static dev.tandem.config.RouterOptions.CACHE_THRESHOLD;
import static dev.tandem.config.RouterOptions.PD_BALANCE_FACTOR;
import static dev.tandem.config.RouterOptions.PD_POLICY;
import static dev.tandem.config.RouterOptions.PD_PREFILL_BUSY;
import static dev.tandem.config.RouterOptions.PD_PREFILL_WAIT;
import static dev.tandem.config.RouterOptions.PD_SHORT_PROMPT;
import static dev.tandem.config.RouterOptions.POLICY;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;

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
    RoutePolicy policy = new RoutePolicy(RoutePolicy.Kind.parse(options.policy()),
        new CacheAwarePolicy.Options(options.get(CACHE_THRESHOLD), options.get(BALANCE_ABS),
            options.get(BALANCE_REL)));
    registry.onProcessGone(policy::forget);
    PdSplitPolicy split = new PdSplitPolicy(new PdSplitPolicy.Options(
        PdSplitPolicy.Mode.parse(options.get(PD_POLICY)), options.get(PD_BALANCE_FACTOR),
        options.get(PD_SHORT_PROMPT), options.get(PD_PREFILL_BUSY), options.get(PD_PREFILL_WAIT),
        PdSplitPolicy.DEFAULT_MAX_BALANCE_FACTOR));
    EngineCalls calls = new EngineCalls(registry, policy, split, client, options, metrics);
    registry.onProcessGone(calls.backlog::forget);
    return switch (options.get(ROUTER_MODE)) {
      case ROUND_ROBIN -> new RoundRobinDispatcher(calls);
      case DISAGG -> new DisaggregatedDispatcher(calls);
    };
  }
}
