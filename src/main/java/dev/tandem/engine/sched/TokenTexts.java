package dev.tandem.engine.sched;

import dev.tandem.tokenizer.TextTokenizer;
import java.util.concurrent.atomic.AtomicReferenceArray;

/** The text of single tokens (for logprobs), decoded once per id. Thread-safe. */
final class TokenTexts {
  private final TextTokenizer tokenizer;
  private final AtomicReferenceArray<String> texts;

  TokenTexts(TextTokenizer tokenizer, int vocabSize) {
    this.tokenizer = tokenizer;
    this.texts = new AtomicReferenceArray<>(vocabSize);
  }

  String of(int id) {
    if (id < 0 || id >= texts.length()) {
      return tokenizer.decode(new int[] {id});
    }
    String s = texts.get(id);
    if (s == null) {
      s = tokenizer.decode(new int[] {id});
      texts.set(id, s);
    }
    return s;
  }
}
