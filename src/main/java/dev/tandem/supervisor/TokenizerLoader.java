package dev.tandem.supervisor;

import dev.tandem.tokenizer.TextTokenizer;
import java.nio.file.Path;

/** Loads the router's tokenizer from the model folder. Slow: the supervisor runs it off event loops. */
@FunctionalInterface
public interface TokenizerLoader {
  TextTokenizer load(Path modelDir) throws Exception;

  /** The Hugging Face tokenizer of the model folder, through DJL. */
  static TokenizerLoader djl() {
    return modelDir -> {
      // Reflective until the tokenizer package lands on this branch; see DjlTokenizer.load(Path).
      Class<?> djl = Class.forName("dev.tandem.tokenizer.DjlTokenizer");
      return (TextTokenizer) djl.getMethod("load", Path.class).invoke(null, modelDir);
    };
  }
}
