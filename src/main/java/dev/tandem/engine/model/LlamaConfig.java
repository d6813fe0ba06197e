package dev.tandem.engine.model;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * The parts of a Hugging Face {@code config.json} the engine uses, for every {@link ModelFamily}.
 *
 * @param ropeScaling Llama 3.1's frequency remapping, or null for plain RoPE
 * @param attentionBias {@code attention_bias} as the family reads it (Qwen2's q/k/v biases are
 *     implied by the family, see {@link #qkvBias()})
 * @param bosTokenId -1 when the config names none
 * @param eosTokenIds {@code eos_token_id}, a number or a list; may be empty
 */
public record LlamaConfig(ModelFamily family, int vocabSize, int hiddenSize, int intermediateSize,
    int numLayers, int numHeads, int numKvHeads, int headDim, double ropeTheta, RopeScaling ropeScaling,
    double rmsNormEps, int maxPositionEmbeddings, boolean tieWordEmbeddings, boolean attentionBias,
    int bosTokenId, List<Integer> eosTokenIds) {

  public static final String FILE_NAME = "config.json";

  public LlamaConfig {
    eosTokenIds = List.copyOf(eosTokenIds);
  }

  /** A plain Llama config (no rope scaling, no biases, one eos id). */
  public LlamaConfig(int vocabSize, int hiddenSize, int intermediateSize, int numLayers, int numHeads,
      int numKvHeads, int headDim, double ropeTheta, double rmsNormEps, int maxPositionEmbeddings,
      boolean tieWordEmbeddings, int bosTokenId, int eosTokenId) {
    this(ModelFamily.LLAMA, vocabSize, hiddenSize, intermediateSize, numLayers, numHeads, numKvHeads, headDim,
        ropeTheta, null, rmsNormEps, maxPositionEmbeddings, tieWordEmbeddings, false, bosTokenId,
        List.of(eosTokenId));
  }

  public int kvDim() {
    return numKvHeads * headDim;
  }

  /** Width of the concatenated query heads (equals hiddenSize unless head_dim is given explicitly). */
  public int qDim() {
    return numHeads * headDim;
  }

  /** Whether q_proj, k_proj and v_proj have biases (Qwen2 always; others with attention_bias). */
  public boolean qkvBias() {
    return family.qkvBias(attentionBias);
  }

  /** Whether o_proj has a bias. */
  public boolean oBias() {
    return family.oBias(attentionBias);
  }

  /** The first eos id (-1 when there is none). */
  public int eosTokenId() {
    return eosTokenIds.isEmpty() ? -1 : eosTokenIds.get(0);
  }

  /** Reads and validates {@code dir/config.json}. */
  public static LlamaConfig load(Path dir) throws ModelLoadException {
    Path file = dir.resolve(FILE_NAME);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new ModelLoadException(file + ": missing (a model folder needs config.json)");
    } catch (IOException e) {
      throw new ModelLoadException(file + ": cannot read: " + e.getMessage(), e);
    }
    JsonObject json;
    try {
      json = new JsonObject(new String(bytes, StandardCharsets.UTF_8));
    } catch (DecodeException | ClassCastException e) {
      throw new ModelLoadException(file + ": not a JSON object: " + e.getMessage(), e);
    }
    return fromJson(json, file.toString());
  }

  /** Validates a parsed config; {@code source} names the file in error messages. */
  public static LlamaConfig fromJson(JsonObject json, String source) throws ModelLoadException {
    ConfigReader r = new ConfigReader(json, source);
    ModelFamily family = r.family();
    r.checkUnsupported(family);
    int hidden = r.positiveInt("hidden_size", null);
    int heads = r.positiveInt("num_attention_heads", null);
    int kvHeads = r.positiveInt("num_key_value_heads", heads);
    Integer defaultHeadDim = family == ModelFamily.QWEN3 ? Integer.valueOf(128)
        : hidden % heads == 0 ? Integer.valueOf(hidden / heads) : null;
    int headDim = r.positiveInt("head_dim", defaultHeadDim);
    int maxPositions = r.positiveInt("max_position_embeddings", family == ModelFamily.LLAMA ? 2048 : 32768);
    boolean qwen = family != ModelFamily.LLAMA;
    LlamaConfig c = new LlamaConfig(family,
        r.positiveInt("vocab_size", null),
        hidden,
        r.positiveInt("intermediate_size", null),
        r.positiveInt("num_hidden_layers", null),
        heads, kvHeads, headDim,
        r.ropeTheta(),
        r.ropeScaling(maxPositions),
        r.positiveDouble("rms_norm_eps", 1e-6),
        maxPositions,
        r.bool("tie_word_embeddings", false),
        family != ModelFamily.QWEN2 && r.bool("attention_bias", false),
        r.tokenIds("bos_token_id", qwen ? List.of() : List.of(1)).stream().findFirst().orElse(-1),
        r.tokenIds("eos_token_id", qwen ? List.of() : List.of(2)));
    if (heads % kvHeads != 0) {
      throw r.fail("num_attention_heads (" + heads + ") is not a multiple of num_key_value_heads (" + kvHeads + ")");
    }
    if (headDim % 2 != 0) {
      throw r.fail("head_dim " + headDim + " is odd; rotary embeddings need an even head size");
    }
    r.checkSlidingWindow(family, c.numLayers(), maxPositions);
    return c;
  }
}
