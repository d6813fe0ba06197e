package dev.tandem.cli;

import dev.tandem.engine.model.GenerationConfig;
import dev.tandem.engine.model.LlamaConfig;
import dev.tandem.engine.model.ModelLoadException;
import dev.tandem.engine.server.EngineOverrides;
import dev.tandem.engine.sim.Pacer;
import dev.tandem.engine.sim.PacedKvWorld;
import dev.tandem.engine.sim.SimForwardModel;
import dev.tandem.engine.sim.SimProfile;
import dev.tandem.engine.sim.SimSizing;
import dev.tandem.engine.sim.StepTimeModel;
import dev.tandem.tokenizer.DjlTokenizer;
import dev.tandem.tokenizer.TextTokenizer;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code tandem serve MODEL --device sim:N --sim-profile P}: the builtin engine server over a
 * simulated GPU. The model folder supplies only the vocabulary (its {@code tokenizer.json} and
 * {@code config.json}: vocabulary size, special tokens, context window), so prompts and answers
 * are real text; the profile supplies the timing shape (e.g. Llama-3-8B on an H100) and the KV
 * capacity. A simulated engine is meant to be one of dozens on a small machine: one event loop,
 * two workers.
 */
final class SimServe {

  private SimServe() {}

  static VertxOptions vertxOptions() {
    return new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(2)
        .setInternalBlockingPoolSize(2);
  }

  static ServedModel load(Path dir, String profileName, String mode, EngineOverrides overrides,
      boolean prefixCache, Duration parkedTtl) throws ModelLoadException, IOException {
    SimProfile profile = SimProfile.load(profileName == null ? SimProfile.DEFAULT : profileName);
    LlamaConfig vocab = LlamaConfig.load(dir);
    StepTimeModel timing = new StepTimeModel(profile);
    SimForwardModel model = new SimForwardModel(vocab, timing, Pacer.REAL);
    var options = SimSizing.size(model, timing, mode, overrides, prefixCache, parkedTtl);
    TextTokenizer tokenizer = DjlTokenizer.load(dir);
    return new ServedModel(model, tokenizer, options, GenerationConfig.load(dir),
        world -> new PacedKvWorld(world, timing),
        "simulated " + profile.model().name() + " on " + profile.gpu().count() + " x "
            + profile.gpu().name() + " (profile " + profile.name() + ", "
            + options.numKvPages() + " KV pages, vocabulary of " + dir + ")");
  }
}
