package dev.tandem.engine.model;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Writes the model half of a seeded random Hugging Face Llama folder: {@code config.json},
 * {@code model.safetensors} (weights ~ N(0, 0.02), norm weights 1) and
 * {@code generation_config.json}. Every tensor draws from its own generator seeded by the seed
 * and the tensor's name, so the same seed always gives the same bytes.
 */
public final class RandomModelWriter {
  public static final double INIT_STD = 0.02;

  private RandomModelWriter() {}

  public static void write(Path dir, LlamaConfig c, long seed, SafetensorsDtype dtype) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(LlamaConfig.FILE_NAME), configJson(c, dtype).encodePrettily() + "\n",
        StandardCharsets.UTF_8);
    JsonObject gen = new JsonObject().put("bos_token_id", c.bosTokenId()).put("eos_token_id", c.eosTokenId())
        .put("do_sample", false).put("transformers_version", "4.46.0");
    Files.writeString(dir.resolve("generation_config.json"), gen.encodePrettily() + "\n", StandardCharsets.UTF_8);
    SafetensorsWriter.write(dir.resolve(WeightFiles.SINGLE), tensors(c, seed), dtype);
  }

  /** The config.json of {@code c}, in the field order Hugging Face writes. */
  public static JsonObject configJson(LlamaConfig c, SafetensorsDtype dtype) {
    JsonObject j = new JsonObject()
        .put("architectures", new JsonArray().add("LlamaForCausalLM"))
        .put("attention_bias", false)
        .put("attention_dropout", 0.0)
        .put("bos_token_id", c.bosTokenId())
        .put("eos_token_id", c.eosTokenId())
        .put("head_dim", c.headDim())
        .put("hidden_act", "silu")
        .put("hidden_size", c.hiddenSize())
        .put("initializer_range", INIT_STD)
        .put("intermediate_size", c.intermediateSize())
        .put("max_position_embeddings", c.maxPositionEmbeddings())
        .put("mlp_bias", false)
        .put("model_type", "llama")
        .put("num_attention_heads", c.numHeads())
        .put("num_hidden_layers", c.numLayers())
        .put("num_key_value_heads", c.numKvHeads())
        .put("pretraining_tp", 1)
        .put("rms_norm_eps", c.rmsNormEps())
        .putNull("rope_scaling")
        .put("rope_theta", c.ropeTheta())
        .put("tie_word_embeddings", c.tieWordEmbeddings())
        .put("torch_dtype", dtype == SafetensorsDtype.BF16 ? "bfloat16" : dtype == SafetensorsDtype.F16 ? "float16" : "float32")
        .put("use_cache", true)
        .put("vocab_size", c.vocabSize());
    return j;
  }

  private static List<SafetensorsWriter.Entry> tensors(LlamaConfig c, long seed) {
    long h = c.hiddenSize();
    List<SafetensorsWriter.Entry> list = new ArrayList<>();
    list.add(random("model.embed_tokens.weight", seed, c.vocabSize(), h));
    for (int i = 0; i < c.numLayers(); i++) {
      String p = "model.layers." + i + ".";
      list.add(ones(p + "input_layernorm.weight", h));
      list.add(ones(p + "post_attention_layernorm.weight", h));
      list.add(random(p + "self_attn.q_proj.weight", seed, c.qDim(), h));
      list.add(random(p + "self_attn.k_proj.weight", seed, c.kvDim(), h));
      list.add(random(p + "self_attn.v_proj.weight", seed, c.kvDim(), h));
      list.add(random(p + "self_attn.o_proj.weight", seed, h, c.qDim()));
      list.add(random(p + "mlp.gate_proj.weight", seed, c.intermediateSize(), h));
      list.add(random(p + "mlp.up_proj.weight", seed, c.intermediateSize(), h));
      list.add(random(p + "mlp.down_proj.weight", seed, h, c.intermediateSize()));
    }
    list.add(ones("model.norm.weight", h));
    if (!c.tieWordEmbeddings()) {
      list.add(random("lm_head.weight", seed, c.vocabSize(), h));
    }
    list.sort(Comparator.comparing(SafetensorsWriter.Entry::name));
    return list;
  }

  private static SafetensorsWriter.Entry random(String name, long seed, long rows, long cols) {
    return new SafetensorsWriter.Entry(name, new long[] {rows, cols}, () -> {
      // String.hashCode is specified by the JLS, so this seed is the same on every JVM.
      SplittableRandom rng = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + name.hashCode());
      float[] v = new float[Math.toIntExact(rows * cols)];
      for (int i = 0; i < v.length; i++) {
        v[i] = (float) (rng.nextGaussian() * INIT_STD);
      }
      return v;
    });
  }

  private static SafetensorsWriter.Entry ones(String name, long n) {
    return new SafetensorsWriter.Entry(name, new long[] {n}, () -> {
      float[] v = new float[Math.toIntExact(n)];
      Arrays.fill(v, 1f);
      return v;
    });
  }
}
