package dev.tandem.engine.model;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/** Typed access to a {@code config.json} that names the file and field in every error. */
final class ConfigReader {
  private final JsonObject json;
  private final String source;

  ConfigReader(JsonObject json, String source) {
    this.json = json;
    this.source = source;
  }

  ModelLoadException fail(String what) {
    return new ModelLoadException(source + ": " + what);
  }

  /** The family named by {@code architectures[0]} and {@code model_type}, which must agree. */
  ModelFamily family() throws ModelLoadException {
    Object archs = json.getValue("architectures");
    String arch = archs instanceof JsonArray a && !a.isEmpty() ? String.valueOf(a.getValue(0)) : null;
    Object typeValue = json.getValue("model_type");
    String type = typeValue == null ? null : typeValue.toString();
    if (arch == null && type == null) {
      throw fail("neither \"architectures\" nor \"model_type\" is set; expected one of "
          + ModelFamily.allArchitectures() + " / " + ModelFamily.allModelTypes());
    }
    ModelFamily byArch = arch == null ? null : ModelFamily.byArchitecture(arch);
    if (arch != null && byArch == null) {
      throw fail("unsupported architecture " + arch + "; supported: " + ModelFamily.allArchitectures());
    }
    ModelFamily byType = type == null ? null : ModelFamily.byModelType(type);
    if (type != null && byType == null) {
      throw fail("unsupported model_type " + type + "; supported: " + ModelFamily.allModelTypes());
    }
    if (byArch != null && byType != null && byArch != byType) {
      throw fail("architecture " + arch + " and model_type " + type + " name different families");
    }
    return byArch != null ? byArch : byType;
  }

  void checkUnsupported(ModelFamily family) throws ModelLoadException {
    Object act = json.getValue("hidden_act");
    if (act != null && !"silu".equals(act)) {
      throw fail("unsupported hidden_act " + act + "; only silu (SwiGLU) is supported");
    }
    if (family == ModelFamily.LLAMA && Boolean.TRUE.equals(json.getValue("mlp_bias"))) {
      throw fail("mlp_bias is not supported");
    }
    Object partial = json.getValue("partial_rotary_factor");
    if (partial instanceof Number n && n.doubleValue() != 1.0) {
      throw fail("partial_rotary_factor " + n + " is not supported (only 1.0)");
    }
  }

  /**
   * Only full attention is supported. Mistral's {@code sliding_window} counts when shorter than
   * the context; Qwen's only with {@code use_sliding_window}, and then on the layers its
   * {@code layer_types} (or {@code max_window_layers}) mark, as transformers reads them.
   */
  void checkSlidingWindow(ModelFamily family, int numLayers, int maxPositions) throws ModelLoadException {
    Object window = json.getValue("sliding_window");
    boolean shorter = window instanceof Number w && w.longValue() < maxPositions;
    if (!shorter) {
      return;
    }
    if (family == ModelFamily.LLAMA) {
      throw fail("sliding_window " + window + " is not supported (only full attention)");
    }
    if (!Boolean.TRUE.equals(json.getValue("use_sliding_window"))) {
      return;
    }
    Object types = json.getValue("layer_types");
    boolean sliding = types instanceof JsonArray a ? a.contains("sliding_attention")
        : !(json.getValue("max_window_layers") instanceof Number m) || m.longValue() < numLayers;
    if (sliding) {
      throw fail("use_sliding_window with sliding_window " + window + " is not supported (only full attention)");
    }
  }

  /** The RoPE parameters: {@code rope_scaling}, else transformers v5's {@code rope_parameters}. */
  private JsonObject ropeParameters() throws ModelLoadException {
    for (String key : new String[] {"rope_scaling", "rope_parameters"}) {
      Object v = json.getValue(key);
      if (v instanceof JsonObject o) {
        return o;
      }
      if (v != null) {
        throw fail("\"" + key + "\" must be an object or null, got " + v);
      }
    }
    return null;
  }

  double ropeTheta() throws ModelLoadException {
    JsonObject p = ropeParameters();
    if (p != null && p.getValue("rope_theta") != null) {
      return positiveDouble("rope_parameters.rope_theta", p.getValue("rope_theta"), 10000.0);
    }
    return positiveDouble("rope_theta", 10000.0);
  }

  /** Null for plain RoPE ({@code rope_type} default or absent); the llama3 remapping; else an error. */
  RopeScaling ropeScaling(int maxPositions) throws ModelLoadException {
    JsonObject p = ropeParameters();
    if (p == null) {
      return null;
    }
    Object type = p.getValue("rope_type", p.getValue("type", "default"));
    if ("default".equals(type)) {
      return null;
    }
    if (!RopeScaling.TYPE.equals(type)) {
      throw fail("rope_scaling type " + type + " is not supported (only default and llama3)");
    }
    double factor = positiveDouble("rope_scaling.factor", p.getValue("factor"), null);
    double low = positiveDouble("rope_scaling.low_freq_factor", p.getValue("low_freq_factor"), null);
    double high = positiveDouble("rope_scaling.high_freq_factor", p.getValue("high_freq_factor"), null);
    Object original = p.getValue("original_max_position_embeddings");
    int originalMax = original == null ? maxPositions
        : (int) positiveDouble("rope_scaling.original_max_position_embeddings", original, null);
    try {
      return new RopeScaling(factor, low, high, originalMax);
    } catch (IllegalArgumentException e) {
      throw fail(e.getMessage());
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
    return positiveDouble(key, json.getValue(key), dflt);
  }

  private double positiveDouble(String key, Object v, Double dflt) throws ModelLoadException {
    if (v == null) {
      if (dflt == null) {
        throw fail("missing required field \"" + key + "\"");
      }
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

  /** A token id or a list of them ({@code eos_token_id} may be either). */
  List<Integer> tokenIds(String key, List<Integer> dflt) throws ModelLoadException {
    return tokenIds(json, key, source, dflt);
  }

  /** As {@link #tokenIds(String, List)}, for any JSON object (generation_config.json too). */
  static List<Integer> tokenIds(JsonObject json, String key, String source, List<Integer> dflt)
      throws ModelLoadException {
    Object v = json.getValue(key);
    if (v == null) {
      return dflt;
    }
    List<Object> values = v instanceof JsonArray a ? a.getList() : List.of(v);
    List<Integer> ids = new ArrayList<>();
    for (Object o : values) {
      if (!(o instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue()) || n.longValue() < 0
          || n.longValue() > Integer.MAX_VALUE) {
        throw new ModelLoadException(source + ": \"" + key + "\" must be a token id or a list of them, got " + v);
      }
      if (!ids.contains(n.intValue())) {
        ids.add(n.intValue());
      }
    }
    return ids;
  }
}
