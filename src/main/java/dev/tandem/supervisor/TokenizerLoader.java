package dev.tandem.supervisor;

import dev.tandem.tokenizer.DjlTokenizer;
import dev.tandem.tokenizer.TextTokenizer;
import java.nio.file.Path;

/** Loads the router's tokenizer from the model folder. Slow: the supervisor runs it off event loops. */
@FunctionalInterface
public interface TokenizerLoader {
  TextTokenizer load(Path modelDir) throws Exception;

  /** The Hugging Face {@code tokenizer.json} of the model folder, through DJL. */
  static TokenizerLoader djl() {
    return DjlTokenizer::load;
  }
}
