package dev.tandem.router.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.tokenizer.DjlTokenizer;
import dev.tandem.tokenizer.TokenizerFilesWriter;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Matching an engine's token record against delivered text, with a real byte-level BPE tokenizer. */
class TokenMatchTest {

  @TempDir static Path dir;
  static DjlTokenizer tokenizer;

  @BeforeAll
  static void tokenizer() throws Exception {
    TokenizerFilesWriter.write(dir, 1024, 4096, 7);
    tokenizer = DjlTokenizer.load(dir);
  }

  @AfterAll
  static void close() {
    tokenizer.close();
  }

  @Test
  void everyTokenDeliveredMatchesAll() {
    int[] prompt = tokenizer.encode("The answer is");
    int[] out = tokenizer.encode(" forty two, of course");
    String text = decodeAfter(prompt, out);
    assertEquals(out.length, TokenMatch.deliveredCount(tokenizer, prompt, out, text));
  }

  @Test
  void heldBackTrailingTokensAreNotCounted() {
    int[] prompt = tokenizer.encode("Say it:");
    int[] out = tokenizer.encode(" hello world again");
    int delivered = out.length - 2;
    String text = decodeAfter(prompt, Arrays.copyOf(out, delivered));
    assertEquals(delivered, TokenMatch.deliveredCount(tokenizer, prompt, out, text));
  }

  @Test
  void aPartialCharacterHeldBackIsNotCountedEither() {
    int[] prompt = tokenizer.encode("Snow:");
    int[] out = tokenizer.encode(" ❄❄");
    // the client got only the first snowflake; the rest (maybe several byte tokens) was held back
    int k = TokenMatch.deliveredCount(tokenizer, prompt, out, " ❄");
    assertEquals(" ❄", decodeAfter(prompt, Arrays.copyOf(out, k)));
  }

  @Test
  void textThatNoPrefixDecodesToIsUnmatched() {
    int[] prompt = tokenizer.encode("x");
    int[] out = tokenizer.encode(" abc");
    assertEquals(-1, TokenMatch.deliveredCount(tokenizer, prompt, out, " abd"));
  }

  static String decodeAfter(int[] prompt, int[] out) {
    int[] all = Arrays.copyOf(prompt, prompt.length + out.length);
    System.arraycopy(out, 0, all, prompt.length, out.length);
    return tokenizer.decode(all).substring(tokenizer.decode(prompt).length());
  }
}
