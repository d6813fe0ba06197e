package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** config.json of Qwen2 and Qwen3 as their transformers configs read them. */
class FamilyConfigTest {

  /** The fields of Qwen2.5-0.5B-Instruct's config.json, smaller. */
  static JsonObject qwen25() {
    return new JsonObject().put("architectures", List.of("Qwen2ForCausalLM")).put("model_type", "qwen2")
        .put("hidden_size", 64).put("num_attention_heads", 4).put("num_key_value_heads", 2)
        .put("intermediate_size", 96).put("num_hidden_layers", 2).put("vocab_size", 300)
        .put("max_position_embeddings", 32768).put("rope_theta", 1000000.0).put("rms_norm_eps", 1e-6)
        .put("sliding_window", 32768).put("max_window_layers", 21).put("use_sliding_window", false)
        .put("tie_word_embeddings", true).put("bos_token_id", 151643).put("eos_token_id", 151645)
        .putNull("rope_scaling").put("hidden_act", "silu");
  }

  /** The fields of Qwen3-0.6B's config.json, smaller: head_dim 32 while hidden / heads is 16. */
  static JsonObject qwen3() {
    return new JsonObject().put("architectures", List.of("Qwen3ForCausalLM")).put("model_type", "qwen3")
        .put("hidden_size", 64).put("num_attention_heads", 4).put("num_key_value_heads", 2).put("head_dim", 32)
        .put("intermediate_size", 96).put("num_hidden_layers", 2).put("vocab_size", 300)
        .put("attention_bias", false).put("sliding_window", null).put("use_sliding_window", false)
        .put("max_window_layers", 28).put("tie_word_embeddings", true).put("eos_token_id", 151645);
  }

  @Test
  void qwen2HasQkvBiasesButNoOutputBias() throws Exception {
    LlamaConfig c = LlamaConfig.fromJson(qwen25(), "config.json");
    assertEquals(ModelFamily.QWEN2, c.family());
    assertTrue(c.qkvBias());
    assertFalse(c.oBias());
    assertFalse(c.family().qkNorm());
    assertTrue(c.tieWordEmbeddings());
    assertEquals(16, c.headDim());
    // attention_bias is no Qwen2 field: q/k/v biases either way, never an o_proj bias
    LlamaConfig withFlag = LlamaConfig.fromJson(qwen25().put("attention_bias", true), "config.json");
    assertTrue(withFlag.qkvBias());
    assertFalse(withFlag.oBias());
    assertFalse(LlamaConfig.fromJson(qwen25().put("tie_word_embeddings", false), "c").tieWordEmbeddings());
  }

  @Test
  void qwen3HasQkNormsAndItsOwnHeadDim() throws Exception {
    LlamaConfig c = LlamaConfig.fromJson(qwen3(), "config.json");
    assertEquals(ModelFamily.QWEN3, c.family());
    assertTrue(c.family().qkNorm());
    assertEquals(32, c.headDim());
    assertEquals(128, c.qDim());
    assertFalse(c.qkvBias());
    assertEquals(32768, c.maxPositionEmbeddings());
    assertEquals(-1, c.bosTokenId());
    JsonObject noHeadDim = qwen3();
    noHeadDim.remove("head_dim");
    assertEquals(128, LlamaConfig.fromJson(noHeadDim, "c").headDim(), "Qwen3Config's default head_dim");
    LlamaConfig biased = LlamaConfig.fromJson(qwen3().put("attention_bias", true), "c");
    assertTrue(biased.qkvBias());
    assertTrue(biased.oBias());
  }

  @Test
  void slidingWindowsAreRefusedOnlyWhereTheyApply() throws Exception {
    // use_sliding_window false: the window is not used, whatever its size
    LlamaConfig.fromJson(qwen25().put("sliding_window", 4096), "c");
    // on, but every layer is below max_window_layers: full attention everywhere
    LlamaConfig.fromJson(qwen25().put("sliding_window", 4096).put("use_sliding_window", true)
        .put("max_window_layers", 2), "c");
    ModelLoadException e = assertThrows(ModelLoadException.class, () -> LlamaConfig.fromJson(
        qwen25().put("sliding_window", 4096).put("use_sliding_window", true).put("max_window_layers", 1), "c"));
    assertTrue(e.getMessage().contains("sliding_window 4096"), e.getMessage());
    e = assertThrows(ModelLoadException.class, () -> LlamaConfig.fromJson(qwen3().put("sliding_window", 4096)
        .put("use_sliding_window", true).put("layer_types", List.of("full_attention", "sliding_attention")), "c"));
    assertTrue(e.getMessage().contains("sliding_window"), e.getMessage());
  }

  @Test
  void architectureAndModelTypeMustAgree() {
    ModelLoadException e = assertThrows(ModelLoadException.class,
        () -> LlamaConfig.fromJson(qwen3().put("model_type", "qwen2"), "c"));
    assertTrue(e.getMessage().contains("different families"), e.getMessage());
    e = assertThrows(ModelLoadException.class, () -> LlamaConfig.fromJson(qwen3()
        .put("architectures", List.of("Qwen3MoeForCausalLM")).put("model_type", "qwen3_moe"), "c"));
    assertTrue(e.getMessage().contains("unsupported architecture Qwen3MoeForCausalLM"), e.getMessage());
  }
}
