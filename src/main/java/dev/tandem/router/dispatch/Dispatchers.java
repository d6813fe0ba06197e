package dev.tandem.router.dispatch;

import static dev.tandem.config.RouterOptions.ROUTER_MODE;

import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.policy.RoutePolicy;
import dev.tandem.router.registry.EngineRegistry;
import dev.tandem.router.upstream.EngineClient;

/** Builds the dispatcher of the configured mode. */
public final class Dispatchers {

  private Dispatchers() {}

  public static Dispatcher create(RouterOptions options, EngineRegistry registry,
      EngineClient client, RouterMetrics metrics) {
    EngineCalls calls = new EngineCalls(registry, new RoutePolicy(), client, options, metrics);
    return switch (options.get(ROUTER_MODE)) {
      case ROUND_ROBIN -> new RoundRobinDispatcher(calls);
      case DISAGG -> new DisaggregatedDispatcher(calls);
    };
  }
}
