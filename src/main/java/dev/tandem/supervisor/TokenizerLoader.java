package dev.tandem.supervisor;

import dev.tandem.tokenizer.DjlTokenizer;
import dev.tandem.tokenizer.TextTokenizer;
import java.nio.file.Path;

/** Loads the router's tokenizer from the model folder. Slow: the supervisor runs it off event loops. */
@FunctionalInterface
public interface TokenizerLoader {
  TextTokenizer load(Path modelDir) throws Exception;

  /**
   * The Hugging Face {@code tokenizer.json} of the model folder, through DJL, keeping the ids of
   * conversations' beginnings (a chat's history is tokenized once, not every turn).
   */
  static TokenizerLoader djl() {
    return dir -> DjlTokenizer.load(dir, DjlTokenizer.PREFIX_CHARS);
  }
}
