package dev.tandem.engine.model;

import java.util.Locale;

/** Shapes {@code tandem make-model} can write. */
public enum ModelPreset {
  /** About a million parameters: tests and demos. Context 4096 so ~1000-token prompts fit easily. */
  TINY(new LlamaConfig(1024, 128, 384, 4, 4, 2, 32, 10000.0, 1e-5, 4096, true, 0, 0)),
  /** The shape of SmolLM2-135M: benchmarks. */
  SMALL(new LlamaConfig(49152, 576, 1536, 30, 9, 3, 64, 100000.0, 1e-5, 8192, true, 0, 0));

  private final LlamaConfig config;

  ModelPreset(LlamaConfig config) {
    this.config = config;
  }

  public LlamaConfig config() {
    return config;
  }

  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Number of parameters (a tied lm_head counted once). */
  public long parameterCount() {
    return parameterCount(config);
  }

  /** Number of parameters of a model of config {@code c}: matrices, norms and biases (a tied lm_head once). */
  public static long parameterCount(LlamaConfig c) {
    long h = c.hiddenSize();
    long qkv = c.qDim() + 2L * c.kvDim();
    long perLayer = 2 * h + h * qkv + (long) c.qDim() * h + 3 * h * c.intermediateSize()
        + (c.qkvBias() ? qkv : 0) + (c.oBias() ? h : 0) + (c.family().qkNorm() ? 2L * c.headDim() : 0);
    return (long) c.vocabSize() * h * (c.tieWordEmbeddings() ? 1 : 2) + h + c.numLayers() * perLayer;
  }
}
