package dev.tandem.supervisor;

import dev.tandem.config.RouterConfig;
import dev.tandem.tokenizer.TextTokenizer;
import io.vertx.core.Deployable;
import io.vertx.core.DeploymentOptions;
import java.util.ServiceLoader;

/**
 * How the supervisor gets "the router verticle", the last thing it deploys once every engine is
 * READY and the tokenizer is loaded. The router learns the fleet from {@code tandem.engine.status}
 * events and {@code tandem.fleet.query}; it listens on {@link RouterConfig#getRouterHost()}:
 * {@link RouterConfig#getRouterPort()}.
 *
 * <p>Found, in this order: the class named by {@code routerFactory} in the configuration (public,
 * no-argument constructor); the first implementation registered in
 * {@code META-INF/services/dev.tandem.supervisor.RouterVerticleFactory}; else the stand-in
 * ({@link StandInRouterVerticle}: /health, /v1/models, /fleet).
 */
public interface RouterVerticleFactory {

  /** One router verticle instance; called once per instance of {@link #deploymentOptions}. */
  Deployable create(RouterConfig config, TextTokenizer tokenizer);

  /** How to deploy it (e.g. several instances). */
  default DeploymentOptions deploymentOptions(RouterConfig config) {
    return new DeploymentOptions();
  }

  /** The factory the configuration asks for, see the class comment. */
  static RouterVerticleFactory resolve(RouterConfig config) {
    String name = config.getRouterFactory();
    if (name != null && !name.isBlank()) {
      try {
        Object factory = Class.forName(name).getConstructor().newInstance();
        if (!(factory instanceof RouterVerticleFactory routerFactory)) {
          throw new IllegalArgumentException(name + " does not implement "
              + RouterVerticleFactory.class.getName());
        }
        return routerFactory;
      } catch (ReflectiveOperationException e) {
        throw new IllegalArgumentException("router factory " + name + " cannot be created: " + e, e);
      }
    }
    return ServiceLoader.load(RouterVerticleFactory.class).findFirst()
        .orElseGet(StandInRouterVerticle::factory);
  }
}
