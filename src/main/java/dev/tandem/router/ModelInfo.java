package dev.tandem.router;

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

  /**
   * Reads {@code max_position_embeddings} and {@code vocab_size} from the model folder's
   * {@code config.json}. Blocking file I/O: call it off the event loop.
   */
  public static ModelInfo read(Path modelDir, String id) throws IOException {
    JsonObject config = new JsonObject(Files.readString(modelDir.resolve("config.json")));
    return new ModelInfo(id, config.getInteger("max_position_embeddings", 0),
        config.getInteger("vocab_size", 0));
  }
}
