package dev.tandem.chat;

import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The special-token variables a chat template sees ({@code bos_token}, {@code eos_token}, ...), as
 * transformers passes its {@code special_tokens_map}: only the ones the tokenizer config sets.
 *
 * @param tokens variable name to token text
 */
public record SpecialTokens(Map<String, String> tokens) {
  /** The names transformers puts in {@code special_tokens_map} (besides the additional list). */
  public static final String[] NAMES = {"bos_token", "eos_token", "unk_token", "sep_token",
      "pad_token", "cls_token", "mask_token"};

  public SpecialTokens {
    tokens = Map.copyOf(tokens);
  }

  public static SpecialTokens none() {
    return new SpecialTokens(Map.of());
  }

  /** Reads them from a {@code tokenizer_config.json} object: strings, or {@code {"content": ...}}. */
  public static SpecialTokens fromTokenizerConfig(JsonObject config) {
    Map<String, String> tokens = new LinkedHashMap<>();
    for (String name : NAMES) {
      Object v = config.getValue(name);
      if (v instanceof String s) {
        tokens.put(name, s);
      } else if (v instanceof JsonObject o && o.getValue("content") instanceof String s) {
        tokens.put(name, s);
      }
    }
    return new SpecialTokens(tokens);
  }

  public String get(String name) {
    return tokens.get(name);
  }
}
