package dev.tandem.tokenizer;

/** Text to token ids and back. Implementations are thread-safe; calls may be slow (run off event loops). */
public interface TextTokenizer extends AutoCloseable {
  int[] encode(String text);

  /** Decodes ids to text, special tokens skipped; invalid UTF-8 tails decode to U+FFFD. */
  String decode(int[] ids);

  int vocabSize();

  /** What keeping prompts' beginnings has done; null where this tokenizer keeps none. */
  default KeptBeginnings keptBeginnings() {
    return null;
  }

  @Override
  void close();
}
