package dev.tandem.supervisor;

import static dev.tandem.config.RouterConfig.ENGINE_OVERRIDES;
import static dev.tandem.config.RouterConfig.MODEL;

import dev.tandem.config.RouterConfig;
import dev.tandem.router.RouterVerticle;
import dev.tandem.tokenizer.TextTokenizer;
import io.vertx.core.Deployable;
import java.nio.file.Path;

/**
 * The router the supervisor deploys last, once every engine is READY and the tokenizer is
 * loaded: {@link #TANDEM}, the {@link RouterVerticle} of this jar, unless a test hands the
 * supervisor another. The router learns the fleet from {@code tandem.engine.status} events and
 * {@code tandem.fleet.query}.
 */
@FunctionalInterface
public interface RouterVerticleFactory {

  /** Tandem's router: options from the configuration, model limits read from the model folder. */
  RouterVerticleFactory TANDEM = (config, tokenizer) -> RouterVerticle.forModelDir(
      config.routerOptions(), config.get(MODEL), Path.of(config.get(MODEL)),
      config.get(ENGINE_OVERRIDES), tokenizer);

  Deployable create(RouterConfig config, TextTokenizer tokenizer);
}
