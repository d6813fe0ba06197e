package dev.tandem.router.api;

import dev.tandem.api.PromptLimits;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the router must know about the served model to validate requests before any engine sees
 * them: the id it reports in {@code /v1/models}, the context length (prompt plus completion) and
 * the vocabulary size (token-id prompts). A value of 0 means unknown and skips that check.
 */
public record ModelInfo(String id, int contextLength, int vocabSize) {

  /** KV page size of the builtin engine: its context is a whole number of pages. */
  private static final int PAGE = 16;

  /**
   * Reads {@code max_position_embeddings} and {@code vocab_size} from the model folder's
   * {@code config.json} and applies the engines' {@code --overrides} that shorten the context as
   * the builtin engine does ({@code context_window_size}, {@code max_total_seq_length}). A folder
   * without config.json (an MLC-compiled model, say) gives unknown limits. Blocking file I/O:
   * call it off the event loop.
   */
  public static ModelInfo read(Path modelDir, String id, String engineOverrides) throws IOException {
    Path config = modelDir.resolve("config.json");
    if (!Files.isRegularFile(config)) {
      return new ModelInfo(id, 0, 0);
    }
    JsonObject json = new JsonObject(Files.readString(config));
    int context = json.getInteger("max_position_embeddings", 0);
    Integer window = override(engineOverrides, "context_window_size");
    if (window != null && window > 0) {
      context = context == 0 ? window : Math.min(context, window);
    }
    Integer kvTokens = override(engineOverrides, "max_total_seq_length");
    if (kvTokens != null && kvTokens >= PAGE) {
      int kvContext = kvTokens / PAGE * PAGE;
      context = context == 0 ? kvContext : Math.min(context, kvContext);
    }
    return new ModelInfo(id, context, json.getInteger("vocab_size", 0));
  }

  /** The engine's prompt checks with this model's limits (unknown ones skipped). */
  public PromptLimits limits() {
    return new PromptLimits(vocabSize, contextLength);
  }

  /** One integer of an {@code --overrides "k=v;k=v"} string, or null. */
  static Integer override(String overrides, String key) {
    if (overrides == null) {
      return null;
    }
    for (String part : overrides.split(";")) {
      int eq = part.indexOf('=');
      if (eq > 0 && part.substring(0, eq).strip().equals(key)) {
        try {
          return Integer.parseInt(part.substring(eq + 1).strip());
        } catch (NumberFormatException e) {
          return null;
        }
      }
    }
    return null;
  }
}
