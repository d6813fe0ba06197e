package dev.tandem.router;

import dev.tandem.config.RouterConfig;
import dev.tandem.supervisor.RouterVerticleFactory;
import dev.tandem.tokenizer.TextTokenizer;
import io.vertx.core.Deployable;
import java.nio.file.Path;

/**
 * Plugs the {@link RouterVerticle} into the supervisor (registered in
 * {@code META-INF/services/dev.tandem.supervisor.RouterVerticleFactory}): mode, address and
 * balance factor from the router configuration; the model's limits read from its folder when the
 * verticle starts; the tokenizer the supervisor loaded.
 */
public final class TandemRouterFactory implements RouterVerticleFactory {

  @Override
  public Deployable create(RouterConfig config, TextTokenizer tokenizer) {
    return RouterVerticle.forModelDir(options(config), config.getModel(), Path.of(config.getModel()),
        config.getEngineOverrides(), tokenizer);
  }

  /** The router options a fleet configuration implies (the rest keep their defaults). */
  public static RouterOptions options(RouterConfig config) {
    return new RouterOptions().setMode(config.getRouterMode()).setHost(config.getRouterHost())
        .setPort(config.getRouterPort()).setPdBalanceFactor(config.getPdBalanceFactor());
  }
}
