package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Llama 3.1's rope_scaling: read from config.json, and remapped as torch computes it, bit for bit. */
class RopeScalingTest {

  /**
   * Llama 3.1 8B's parameters (factor 8, low 1, high 4, original context 8192) on head_dim 64:
   * indices 0-14 keep their frequency, 15-17 are interpolated, 18-31 divided by 8. Both columns
   * from numpy float32 (src/test/resources/families/rope_llama3.py), whose rules are torch's.
   */
  static final int[] BASE = {0x3f800000, 0x3f29e1c5, 0x3ee177bc, 0x3e959ee2, 0x3e4693b0, 0x3e03c6a0, 0x3daee4ad,
      0x3d681e67, 0x3d1a08c8, 0x3ccc6f49, 0x3c87a9c3, 0x3c340d6d, 0x3beef74f, 0x3b9e9402, 0x3b527720, 0x3b0baa41,
      0x3ab95d21, 0x3a7603ea, 0x3a23418d, 0x39d8ac82, 0x398fc8f8, 0x393ed4f3, 0x38fd45c3, 0x38a8126a, 0x385f10c6,
      0x381406cb, 0x37c47610, 0x37825f34, 0x372d07a7, 0x36e5a54d, 0x369864a7, 0x364a41b1};
  static final int[] REMAPPED = {0x3f800000, 0x3f29e1c5, 0x3ee177bc, 0x3e959ee2, 0x3e4693b0, 0x3e03c6a0,
      0x3daee4ad, 0x3d681e67, 0x3d1a08c8, 0x3ccc6f49, 0x3c87a9c3, 0x3c340d6d, 0x3beef74f, 0x3b9e9402, 0x3b527720,
      0x3ab3d11d, 0x3a0995d2, 0x393b2dd2, 0x38a3418d, 0x3858ac82, 0x380fc8f8, 0x37bed4f3, 0x377d45c3, 0x3728126a,
      0x36df10c6, 0x369406cb, 0x36447610, 0x36025f34, 0x35ad07a7, 0x3565a54d, 0x351864a7, 0x34ca41b1};

  @Test
  void remapsLikeTransformersInFloat32() {
    float[] base = new float[BASE.length];
    for (int i = 0; i < base.length; i++) {
      base[i] = Float.intBitsToFloat(BASE[i]);
    }
    float[] out = new RopeScaling(8.0, 1.0, 4.0, 8192).remap(base);
    int[] bits = new int[out.length];
    for (int i = 0; i < out.length; i++) {
      bits[i] = Float.floatToRawIntBits(out[i]);
    }
    assertArrayEquals(REMAPPED, bits);
  }

  @Test
  void ropeUsesTheRemappedFrequencies() {
    RopeScaling s = new RopeScaling(8.0, 1.0, 4.0, 8192);
    assertArrayEquals(s.remap(Rope.inverseFrequencies(64, 500000.0, null)), Rope.inverseFrequencies(64, 500000.0, s));
  }

  static JsonObject llama31() {
    return new JsonObject().put("architectures", List.of("LlamaForCausalLM")).put("model_type", "llama")
        .put("hidden_size", 64).put("num_attention_heads", 4).put("num_key_value_heads", 2)
        .put("intermediate_size", 96).put("num_hidden_layers", 2).put("vocab_size", 300)
        .put("max_position_embeddings", 131072).put("rope_theta", 500000.0)
        .put("eos_token_id", List.of(128001, 128008, 128009)).put("bos_token_id", 128000)
        .put("rope_scaling", new JsonObject().put("factor", 8.0).put("low_freq_factor", 1.0)
            .put("high_freq_factor", 4.0).put("original_max_position_embeddings", 8192).put("rope_type", "llama3"));
  }

  @Test
  void readsLlama31Configs() throws Exception {
    LlamaConfig c = LlamaConfig.fromJson(llama31(), "config.json");
    assertEquals(new RopeScaling(8.0, 1.0, 4.0, 8192), c.ropeScaling());
    assertEquals(500000.0, c.ropeTheta());
    assertEquals(List.of(128001, 128008, 128009), c.eosTokenIds());
    assertEquals(128001, c.eosTokenId());
    // the older key "type", and transformers v5's rope_parameters (theta inside)
    JsonObject old = llama31();
    old.getJsonObject("rope_scaling").remove("rope_type");
    old.getJsonObject("rope_scaling").put("type", "llama3");
    assertEquals(c.ropeScaling(), LlamaConfig.fromJson(old, "config.json").ropeScaling());
    JsonObject v5 = llama31();
    v5.put("rope_parameters", v5.remove("rope_scaling"));
    v5.getJsonObject("rope_parameters").put("rope_theta", 10000.0);
    LlamaConfig c5 = LlamaConfig.fromJson(v5, "config.json");
    assertEquals(c.ropeScaling(), c5.ropeScaling());
    assertEquals(10000.0, c5.ropeTheta());
    // no original_max_position_embeddings: max_position_embeddings, as transformers standardizes it
    JsonObject noOriginal = llama31();
    noOriginal.getJsonObject("rope_scaling").remove("original_max_position_embeddings");
    assertEquals(131072, LlamaConfig.fromJson(noOriginal, "config.json").ropeScaling().originalMaxPositionEmbeddings());
  }

  @Test
  void defaultTypeIsPlainRopeAndOtherTypesAreRefused() throws Exception {
    JsonObject plain = llama31().put("rope_scaling", new JsonObject().put("rope_type", "default"));
    assertNull(LlamaConfig.fromJson(plain, "config.json").ropeScaling());
    for (String type : List.of("yarn", "linear", "dynamic", "longrope")) {
      JsonObject j = llama31().put("rope_scaling", new JsonObject().put("rope_type", type).put("factor", 4.0));
      ModelLoadException e = assertThrows(ModelLoadException.class, () -> LlamaConfig.fromJson(j, "config.json"));
      assertTrue(e.getMessage().contains("rope_scaling type " + type), e.getMessage());
    }
    JsonObject bad = llama31();
    bad.getJsonObject("rope_scaling").put("high_freq_factor", 1.0);
    ModelLoadException e = assertThrows(ModelLoadException.class, () -> LlamaConfig.fromJson(bad, "config.json"));
    assertTrue(e.getMessage().contains("low_freq_factor < high_freq_factor"), e.getMessage());
    JsonObject missing = llama31();
    missing.getJsonObject("rope_scaling").remove("factor");
    e = assertThrows(ModelLoadException.class, () -> LlamaConfig.fromJson(missing, "config.json"));
    assertTrue(e.getMessage().contains("rope_scaling.factor"), e.getMessage());
  }
}
