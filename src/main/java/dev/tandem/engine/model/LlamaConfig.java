package dev.tandem.engine.model;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/** The parts of a Hugging Face Llama {@code config.json} the engine uses. */
public record LlamaConfig(int vocabSize, int hiddenSize, int intermediateSize, int numLayers,
    int numHeads, int numKvHeads, int headDim, double ropeTheta, double rmsNormEps,
    int maxPositionEmbeddings, boolean tieWordEmbeddings, int bosTokenId, int eosTokenId) {

  public static final String FILE_NAME = "config.json";
  private static final List<String> ARCHITECTURES = List.of("LlamaForCausalLM", "MistralForCausalLM");
  private static final List<String> MODEL_TYPES = List.of("llama", "mistral");

  public int kvDim() {
    return numKvHeads * headDim;
  }

  /** Width of the concatenated query heads (equals hiddenSize unless head_dim is given explicitly). */
  public int qDim() {
    return numHeads * headDim;
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
    Reader r = new Reader(json, source);
    r.checkArchitecture();
    int hidden = r.positiveInt("hidden_size", null);
    int heads = r.positiveInt("num_attention_heads", null);
    int kvHeads = r.positiveInt("num_key_value_heads", heads);
    Integer defaultHeadDim = hidden % heads == 0 ? hidden / heads : null;
    int headDim = r.positiveInt("head_dim", defaultHeadDim);
    LlamaConfig c = new LlamaConfig(
        r.positiveInt("vocab_size", null),
        hidden,
        r.positiveInt("intermediate_size", null),
        r.positiveInt("num_hidden_layers", null),
        heads, kvHeads, headDim,
        r.positiveDouble("rope_theta", 10000.0),
        r.positiveDouble("rms_norm_eps", 1e-6),
        r.positiveInt("max_position_embeddings", 2048),
        r.bool("tie_word_embeddings", false),
        r.tokenId("bos_token_id", 1),
        r.tokenId("eos_token_id", 2));
    if (heads % kvHeads != 0) {
      throw r.fail("num_attention_heads (" + heads + ") is not a multiple of num_key_value_heads (" + kvHeads + ")");
    }
    if (headDim % 2 != 0) {
      throw r.fail("head_dim " + headDim + " is odd; rotary embeddings need an even head size");
    }
    return c;
  }

  /** Typed field access that names the file and field in every error. */
  private static final class Reader {
    private final JsonObject json;
    private final String source;

    Reader(JsonObject json, String source) {
      this.json = json;
      this.source = source;
    }

    ModelLoadException fail(String what) {
      return new ModelLoadException(source + ": " + what);
    }

    void checkArchitecture() throws ModelLoadException {
      Object archs = json.getValue("architectures");
      String arch = archs instanceof JsonArray a && !a.isEmpty() ? String.valueOf(a.getValue(0)) : null;
      Object typeValue = json.getValue("model_type");
      String type = typeValue == null ? null : typeValue.toString();
      if (arch == null && type == null) {
        throw fail("neither \"architectures\" nor \"model_type\" is set; expected LlamaForCausalLM / llama");
      }
      if (arch != null && !ARCHITECTURES.contains(arch)) {
        throw fail("unsupported architecture " + arch + "; supported: " + ARCHITECTURES);
      }
      if (type != null && !MODEL_TYPES.contains(type)) {
        throw fail("unsupported model_type " + type + "; supported: " + MODEL_TYPES);
      }
      Object act = json.getValue("hidden_act");
      if (act != null && !"silu".equals(act)) {
        throw fail("unsupported hidden_act " + act + "; only silu (SwiGLU) is supported");
      }
      if (json.getValue("rope_scaling") != null) {
        throw fail("rope_scaling " + json.getValue("rope_scaling") + " is not supported");
      }
      if (Boolean.TRUE.equals(json.getValue("attention_bias")) || Boolean.TRUE.equals(json.getValue("mlp_bias"))) {
        throw fail("attention_bias / mlp_bias are not supported");
      }
      Object window = json.getValue("sliding_window");
      if (window instanceof Number w) {
        Object maxPos = json.getValue("max_position_embeddings");
        if (!(maxPos instanceof Number m) || w.longValue() < m.longValue()) {
          throw fail("sliding_window " + w + " is not supported (only full attention)");
        }
      }
    }

    int positiveInt(String key, Integer dflt) throws ModelLoadException {
      Object v = json.getValue(key);
      if (v == null) {
        if (dflt == null) {
          throw fail("missing required field \"" + key + "\"");
        }
        return dflt;
      }
      if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())
          || n.longValue() <= 0 || n.longValue() > Integer.MAX_VALUE) {
        throw fail("\"" + key + "\" must be a positive integer, got " + v);
      }
      return n.intValue();
    }

    double positiveDouble(String key, double dflt) throws ModelLoadException {
      Object v = json.getValue(key);
      if (v == null) {
        return dflt;
      }
      if (!(v instanceof Number n) || !(n.doubleValue() > 0) || Double.isInfinite(n.doubleValue())) {
        throw fail("\"" + key + "\" must be a positive number, got " + v);
      }
      return n.doubleValue();
    }

    boolean bool(String key, boolean dflt) throws ModelLoadException {
      Object v = json.getValue(key);
      if (v == null) {
        return dflt;
      }
      if (!(v instanceof Boolean b)) {
        throw fail("\"" + key + "\" must be true or false, got " + v);
      }
      return b;
    }

    /** A token id, or the first of a list of them (eos_token_id may be a list). */
    int tokenId(String key, int dflt) throws ModelLoadException {
      Object v = json.getValue(key);
      if (v instanceof JsonArray a) {
        v = a.isEmpty() ? null : a.getValue(0);
      }
      if (v == null) {
        return dflt;
      }
      if (!(v instanceof Number n) || n.longValue() < 0 || n.longValue() > Integer.MAX_VALUE) {
        throw fail("\"" + key + "\" must be a token id, got " + v);
      }
      return n.intValue();
    }
  }
}
