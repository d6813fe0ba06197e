package dev.tandem.supervisor;

import dev.tandem.tokenizer.DjlTokenizer;
import dev.tandem.tokenizer.TextTokenizer;
import java.nio.file.Path;

/** Loads the router's tokenizer from the model folder. Slow: the supervisor runs it off event loops. */
@FunctionalInterface
public interface TokenizerLoader {
  /**
   * @param keptChars the chars of long prompts' beginnings whose token ids the tokenizer may keep
   *     (a chat's history is then tokenized once, not every turn); 0: none
   */
  TextTokenizer load(Path modelDir, long keptChars) throws Exception;

  /** The Hugging Face {@code tokenizer.json} of the model folder, through DJL. */
  static TokenizerLoader djl() {
    return DjlTokenizer::load;
  }
}
