package dev.tandem.cli;

import dev.tandem.engine.model.GenerationConfig;
import dev.tandem.engine.sched.EngineOptions;
import dev.tandem.engine.sched.ForwardModel;
import dev.tandem.kv.KvWorld;
import dev.tandem.tokenizer.TextTokenizer;
import java.util.function.UnaryOperator;

/**
 * What {@code tandem serve} runs: the model (real or simulated), its tokenizer, the engine's
 * limits, the model's stop ids and sampling defaults ({@code generation_config.json}), and how
 * the engine sees the KV world it joined (a simulated engine paces transfers).
 */
record ServedModel(ForwardModel model, TextTokenizer tokenizer, EngineOptions options,
    GenerationConfig generation, UnaryOperator<KvWorld> worldView, String description) {}
