package dev.tandem.engine.model;

import java.util.List;
import java.util.Locale;

/**
 * The decoder architectures the engine runs, as Hugging Face's modeling code defines them. They
 * share the Llama block (RMSNorm, RoPE, grouped-query attention, SwiGLU) and differ in:
 *
 * <ul>
 *   <li>{@link #LLAMA} ({@code LlamaForCausalLM}, also {@code MistralForCausalLM} without a
 *       sliding window): biases on q/k/v/o only with {@code attention_bias}.
 *   <li>{@link #QWEN2} ({@code Qwen2ForCausalLM}, Qwen2 and Qwen2.5): q/k/v projections always
 *       have a bias, o_proj never.
 *   <li>{@link #QWEN3} ({@code Qwen3ForCausalLM}): RMSNorm over each query and key head
 *       ({@code q_norm}, {@code k_norm}) before RoPE; biases on q/k/v/o only with
 *       {@code attention_bias}; {@code head_dim} defaults to 128, not hidden / heads.
 * </ul>
 */
public enum ModelFamily {
  LLAMA(List.of("LlamaForCausalLM", "MistralForCausalLM"), List.of("llama", "mistral")),
  QWEN2(List.of("Qwen2ForCausalLM"), List.of("qwen2")),
  QWEN3(List.of("Qwen3ForCausalLM"), List.of("qwen3"));

  private final List<String> architectures;
  private final List<String> modelTypes;

  ModelFamily(List<String> architectures, List<String> modelTypes) {
    this.architectures = architectures;
    this.modelTypes = modelTypes;
  }

  /** The {@code architectures[0]} a config of this family is written with. */
  public String architecture() {
    return architectures.get(0);
  }

  /** The {@code model_type} a config of this family is written with. */
  public String modelType() {
    return modelTypes.get(0);
  }

  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether q/k/v projections have a bias under {@code attention_bias} as read from config.json. */
  boolean qkvBias(boolean attentionBias) {
    return this == QWEN2 || attentionBias;
  }

  /** Whether o_proj has a bias under {@code attention_bias}. */
  boolean oBias(boolean attentionBias) {
    return this != QWEN2 && attentionBias;
  }

  /** Per-head RMSNorm of queries and keys before RoPE. */
  public boolean qkNorm() {
    return this == QWEN3;
  }

  /** The family whose architecture or model_type this is, or null. */
  static ModelFamily byArchitecture(String architecture) {
    for (ModelFamily f : values()) {
      if (f.architectures.contains(architecture)) {
        return f;
      }
    }
    return null;
  }

  static ModelFamily byModelType(String modelType) {
    for (ModelFamily f : values()) {
      if (f.modelTypes.contains(modelType)) {
        return f;
      }
    }
    return null;
  }

  static List<String> allArchitectures() {
    return java.util.Arrays.stream(values()).flatMap(f -> f.architectures.stream()).toList();
  }

  static List<String> allModelTypes() {
    return java.util.Arrays.stream(values()).flatMap(f -> f.modelTypes.stream()).toList();
  }
}
