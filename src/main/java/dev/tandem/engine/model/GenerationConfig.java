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
 * The parts of a model's {@code generation_config.json} a server uses: its eos ids (a chat model
 * often lists its end-of-turn token only here) and its sampling defaults, which apply to a request
 * that does not set them (as vLLM and SGLang read them: {@code do_sample} and the other fields are
 * not read).
 *
 * @param eosTokenIds {@code eos_token_id}, a number or a list; empty when absent
 * @param temperature null when absent
 * @param topP null when absent
 * @param topK null when absent; kept for a sampler with top-k, which this engine does not have yet
 */
public record GenerationConfig(List<Integer> eosTokenIds, Double temperature, Double topP, Integer topK) {
  public static final String FILE_NAME = "generation_config.json";
  public static final GenerationConfig NONE = new GenerationConfig(List.of(), null, null, null);

  public GenerationConfig {
    eosTokenIds = List.copyOf(eosTokenIds);
  }

  /** Reads {@code dir/generation_config.json}; a folder without one gets {@link #NONE}. */
  public static GenerationConfig load(Path dir) throws ModelLoadException {
    Path file = dir.resolve(FILE_NAME);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return NONE;
    } catch (IOException e) {
      throw new ModelLoadException(file + ": cannot read: " + e.getMessage(), e);
    }
    JsonObject json;
    try {
      json = new JsonObject(text);
    } catch (DecodeException | ClassCastException e) {
      throw new ModelLoadException(file + ": not a JSON object: " + e.getMessage(), e);
    }
    return fromJson(json, file.toString());
  }

  static GenerationConfig fromJson(JsonObject json, String source) throws ModelLoadException {
    Double temperature = number(json, "temperature", source);
    if (temperature != null && temperature < 0) {
      throw new ModelLoadException(source + ": \"temperature\" must be >= 0, got " + temperature);
    }
    Double topP = number(json, "top_p", source);
    if (topP != null && !(topP > 0 && topP <= 1)) {
      throw new ModelLoadException(source + ": \"top_p\" must be in (0, 1], got " + topP);
    }
    Double topK = number(json, "top_k", source);
    if (topK != null && topK != Math.rint(topK)) {
      throw new ModelLoadException(source + ": \"top_k\" must be an integer, got " + topK);
    }
    return new GenerationConfig(ConfigReader.tokenIds(json, "eos_token_id", source, List.of()), temperature,
        topP, topK == null ? null : topK.intValue());
  }

  private static Double number(JsonObject json, String key, String source) throws ModelLoadException {
    Object v = json.getValue(key);
    if (v == null) {
      return null;
    }
    if (!(v instanceof Number n) || !Double.isFinite(n.doubleValue())) {
      throw new ModelLoadException(source + ": \"" + key + "\" must be a number, got " + v);
    }
    return n.doubleValue();
  }

  /** The ids that end a sequence: config.json's, then generation_config.json's not already named. */
  public int[] stopTokenIds(LlamaConfig config) {
    java.util.LinkedHashSet<Integer> ids = new java.util.LinkedHashSet<>(config.eosTokenIds());
    ids.addAll(eosTokenIds);
    return ids.stream().mapToInt(Integer::intValue).toArray();
  }
}
