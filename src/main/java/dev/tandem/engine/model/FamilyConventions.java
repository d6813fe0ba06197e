package dev.tandem.engine.model;

import dev.tandem.tokenizer.TokenizerFilesWriter;
import dev.tandem.tokenizer.TokenizerSpec;
import dev.tandem.tokenizer.TokenizerSpec.AddedToken;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * How {@code tandem make-model --family F} writes a model of a size ({@link ModelPreset}) in a
 * family's conventions: its architecture and config fields, its special tokens (as single ids, at
 * the end of the vocabulary as Llama 3 and Qwen place them), its chat template and its
 * generation_config.json (eos ids, sampling defaults). {@link #LLAMA} is Tandem's original random
 * model, byte for byte.
 */
public enum FamilyConventions {
  /** Tandem's original: Llama architecture, three ChatML specials at ids 0-2, a plain ChatML template. */
  LLAMA,
  /** Llama 3.1: rope_scaling llama3, header-id specials, eos ids end_of_text, eom_id, eot_id. */
  LLAMA3,
  /** Qwen2.5: q/k/v biases, ChatML with tools (hermes tool calls), eos im_end and endoftext. */
  QWEN2,
  /** Qwen3: q/k norms, head_dim twice hidden / heads, ChatML with tools and thinking. */
  QWEN3;

  static final String BEGIN_OF_TEXT = "<|begin_of_text|>";
  static final String END_OF_TEXT_LLAMA3 = "<|end_of_text|>";
  static final String EOM = "<|eom_id|>";
  static final String EOT = "<|eot_id|>";
  static final String ENDOFTEXT = TokenizerFilesWriter.END_OF_TEXT;
  static final String IM_START = TokenizerFilesWriter.IM_START;
  static final String IM_END = TokenizerFilesWriter.IM_END;

  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The model config of a preset's size in this family. */
  public LlamaConfig config(ModelPreset preset) {
    LlamaConfig base = preset.config();
    int vocab = base.vocabSize();
    int kvHeads = base.numKvHeads();
    int heads = base.numHeads();
    TokenizerSpec t = tokenizer();
    return switch (this) {
      case LLAMA -> base;
      case LLAMA3 -> new LlamaConfig(ModelFamily.LLAMA, vocab, base.hiddenSize(), base.intermediateSize(),
          base.numLayers(), heads, kvHeads, base.headDim(), 500000.0,
          new RopeScaling(4.0, 1.0, 4.0, base.maxPositionEmbeddings() / 4), 1e-5, base.maxPositionEmbeddings(),
          base.tieWordEmbeddings(), false, t.idOf(BEGIN_OF_TEXT, vocab),
          List.of(t.idOf(END_OF_TEXT_LLAMA3, vocab), t.idOf(EOM, vocab), t.idOf(EOT, vocab)));
      case QWEN2, QWEN3 -> new LlamaConfig(this == QWEN2 ? ModelFamily.QWEN2 : ModelFamily.QWEN3, vocab,
          base.hiddenSize(), base.intermediateSize(), base.numLayers(), heads, kvHeads,
          this == QWEN3 ? 2 * base.hiddenSize() / heads : base.headDim(), 1000000.0, null, 1e-6,
          base.maxPositionEmbeddings(), true, false, t.idOf(ENDOFTEXT, vocab), List.of(t.idOf(IM_END, vocab)));
    };
  }

  /** The tokenizer's added tokens, special-token names and chat template. */
  public TokenizerSpec tokenizer() {
    return switch (this) {
      case LLAMA -> TokenizerFilesWriter.ORIGINAL;
      case LLAMA3 -> new TokenizerSpec(specials(BEGIN_OF_TEXT, END_OF_TEXT_LLAMA3, "<|reserved_special_token_0|>",
          "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|reserved_special_token_2|>",
          "<|start_header_id|>", "<|end_header_id|>", EOM, EOT, "<|python_tag|>"), false, BEGIN_OF_TEXT, EOT,
          null, null, List.of(), template("llama3"), "PreTrainedTokenizerFast");
      case QWEN2, QWEN3 -> {
        List<AddedToken> added = new ArrayList<>(specials(ENDOFTEXT, IM_START, IM_END));
        added.add(new AddedToken("<tool_call>", false));
        added.add(new AddedToken("</tool_call>", false));
        if (this == QWEN3) {
          for (String s : List.of("<tool_response>", "</tool_response>", "<think>", "</think>")) {
            added.add(new AddedToken(s, false));
          }
        }
        yield new TokenizerSpec(added, false, null, IM_END, ENDOFTEXT, null, List.of(IM_START, IM_END),
            template(id()), "Qwen2Tokenizer");
      }
    };
  }

  /** generation_config.json: bos, the eos ids a chat ends on, and the family's sampling defaults. */
  public JsonObject generationConfig(LlamaConfig c) {
    if (this == LLAMA) {
      return new JsonObject().put("bos_token_id", c.bosTokenId()).put("eos_token_id", c.eosTokenId())
          .put("do_sample", false).put("transformers_version", RandomModelWriter.TRANSFORMERS_VERSION);
    }
    TokenizerSpec t = tokenizer();
    int vocab = c.vocabSize();
    Map<String, Object> m = new TreeMap<>();
    m.put("bos_token_id", c.bosTokenId());
    m.put("do_sample", true);
    m.put("transformers_version", RandomModelWriter.TRANSFORMERS_VERSION);
    if (this == LLAMA3) {
      m.put("eos_token_id", new JsonArray(List.copyOf(c.eosTokenIds())));
      m.put("temperature", 0.6);
      m.put("top_p", 0.9);
    } else {
      m.put("eos_token_id", new JsonArray().add(t.idOf(IM_END, vocab)).add(t.idOf(ENDOFTEXT, vocab)));
      m.put("pad_token_id", t.idOf(ENDOFTEXT, vocab));
      m.put("temperature", this == QWEN2 ? 0.7 : 0.6);
      m.put("top_k", 20);
      m.put("top_p", this == QWEN2 ? 0.8 : 0.95);
    }
    JsonObject j = new JsonObject();
    m.forEach(j::put);
    return j;
  }

  public long parameterCount(ModelPreset preset) {
    return ModelPreset.parameterCount(config(preset));
  }

  /** Writes the whole folder: config, weights, generation config, tokenizer and template. */
  public void write(Path dir, ModelPreset preset, long seed, SafetensorsDtype dtype) throws IOException {
    LlamaConfig c = config(preset);
    RandomModelWriter.write(dir, c, seed, dtype, generationConfig(c));
    TokenizerFilesWriter.write(dir, tokenizer(), c.vocabSize(), c.maxPositionEmbeddings(), seed);
  }

  private static List<AddedToken> specials(String... contents) {
    return java.util.Arrays.stream(contents).map(s -> new AddedToken(s, true)).toList();
  }

  /** A chat template shipped in the jar ({@code templates/NAME.jinja} beside this class). */
  static String template(String name) {
    try (InputStream in = FamilyConventions.class.getResourceAsStream("templates/" + name + ".jinja")) {
      if (in == null) {
        throw new IllegalStateException("templates/" + name + ".jinja is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
