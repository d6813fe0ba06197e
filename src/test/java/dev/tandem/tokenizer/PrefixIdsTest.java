package dev.tandem.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A conversation's prompts, turn after turn, tokenized with the beginnings' ids kept: always the
 * ids of tokenizing each prompt whole, by the real Hugging Face tokenizers library.
 */
class PrefixIdsTest {
  @TempDir
  static Path dir;
  static DjlTokenizer tok;

  /** Pieces that meet the markers: white space, a marker's own start, chars that pair up. */
  private static final List<String> PIECES = List.of("Hello", " world", "  ", "\n", "\n\n", " \n",
      "<|im_", "<|im_end", "|>", "<", "im_start", "caf\u00e9", " \u65e5\u672c\u8a9e",
      "\ud83d\ude00", "\ud83c\uddf3\ud83c\uddf1", "123", "4.5", "\t", "'s", " don't", "!!", "\r\n",
      "The river was low that summer.", " and", " the");

  @BeforeAll
  static void load() throws Exception {
    TokenizerFilesWriter.write(dir, 1024, 4096, 3);
    tok = DjlTokenizer.load(dir, DjlTokenizer.PREFIX_CHARS);
  }

  @AfterAll
  static void close() {
    tok.close();
  }

  private static String content(Random random, int pieces) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < pieces; i++) {
      b.append(PIECES.get(random.nextInt(PIECES.size())));
    }
    return b.toString();
  }

  /** ChatML, as the generated model's template renders it. */
  private static String message(String role, String content) {
    return "<|im_start|>" + role + "\n" + content + "<|im_end|>\n";
  }

  @Test
  void everyTurnsPromptGetsTheWholeTextsIds() {
    PrefixIds cache = tok.prefixIds();
    assertNotNull(cache, "the generated tokenizer's markers are cut points");
    long hitsBefore = cache.stats().found();
    Random random = new Random(7);
    for (int conversation = 0; conversation < 20; conversation++) {
      StringBuilder history = new StringBuilder(message("system", content(random, 150)));
      for (int turn = 0; turn < 6; turn++) {
        history.append(message("user", content(random, 1 + random.nextInt(40))));
        // the prompt ends in the generation prompt, or (continue_final_message) mid-message
        String prompt = history + (random.nextBoolean() ? "<|im_start|>assistant\n"
            : "<|im_start|>assistant\n" + content(random, 3));
        assertArrayEquals(tok.idsOnly(prompt), tok.encode(prompt),
            "conversation " + conversation + ", turn " + turn);
        history.append(message("assistant", content(random, 1 + random.nextInt(60))));
      }
    }
    long hits = cache.stats().found() - hitsBefore;
    assertTrue(hits >= 20 * 3, "later turns found their history: " + hits + " hits");
  }

  /**
   * Llama 3's layout: its markers at the end of the vocabulary, headers between two of them, no
   * newline after a message's end; the same holds.
   */
  @Test
  void aLlama3ConversationGetsTheWholeTextsIds(@TempDir Path other) throws Exception {
    List<String> specials = List.of("<|begin_of_text|>", "<|end_of_text|>",
        "<|reserved_special_token_0|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>",
        "<|eot_id|>", "<|python_tag|>");
    TokenizerSpec spec = new TokenizerSpec(specials.stream()
        .map(s -> new TokenizerSpec.AddedToken(s, true)).toList(), false, specials.get(0),
        "<|eot_id|>", null, null, List.of(), null, "PreTrainedTokenizerFast");
    TokenizerFilesWriter.write(other, spec, 1024, 4096, 5);
    try (DjlTokenizer llama = DjlTokenizer.load(other, DjlTokenizer.PREFIX_CHARS)) {
      assertNotNull(llama.prefixIds());
      Random random = new Random(17);
      for (int conversation = 0; conversation < 10; conversation++) {
        StringBuilder history = new StringBuilder("<|begin_of_text|>");
        for (int turn = 0; turn < 6; turn++) {
          String role = turn % 2 == 0 ? "user" : "assistant";
          history.append("<|start_header_id|>").append(role).append("<|end_header_id|>\n\n")
              .append(content(random, 1 + random.nextInt(200))).append("<|eot_id|>");
          String prompt = history + "<|start_header_id|>assistant<|end_header_id|>\n\n";
          assertArrayEquals(llama.idsOnly(prompt), llama.encode(prompt),
              "conversation " + conversation + ", turn " + turn);
        }
      }
      long found = llama.prefixIds().stats().found();
      assertTrue(found >= 10, "later turns found their history: " + found);
    }
  }

  /** Only a loader that asks for them keeps beginnings (engines do not); a null is refused. */
  @Test
  void beginningsAreKeptOnlyWhenAskedFor() throws Exception {
    try (DjlTokenizer plain = DjlTokenizer.load(dir)) {
      assertNull(plain.prefixIds());
      assertNull(plain.keptBeginnings());
    }
    assertThrows(NullPointerException.class, () -> tok.encode(null));
  }

  /** --tokenizer-cache-mb as chars: -1 the default, 0 none, N MB at 3 bytes a char. */
  @Test
  void theOptionsMegabytesAreCharsAtThreeBytesEach() {
    assertEquals(DjlTokenizer.PREFIX_CHARS, DjlTokenizer.keptChars(-1));
    assertEquals(0, DjlTokenizer.keptChars(0));
    assertEquals((48L << 20) / 3, DjlTokenizer.keptChars(48));
    assertThrows(IllegalArgumentException.class, () -> DjlTokenizer.keptChars(-2));
  }

  /**
   * A text of thousands of markers is tokenized right, and looks up only its last cut points:
   * a beginning kept further back is not found (a turn adds a few cut points, not hundreds).
   */
  @Test
  void aTextOfMarkersLooksUpOnlyItsLastCuts() {
    PrefixIds cache = new PrefixIds(TokenizerSegments.of(new JsonObject(tokenizerJson())),
        tok::idsOnly, 1L << 24);
    String head = message("user", content(new Random(5), 300));
    assertArrayEquals(tok.idsOnly(head), cache.encode(head));
    String markers = "<|im_end|>".repeat(PrefixIds.MAX_LOOKUPS + 10);
    long found = cache.stats().found();
    assertArrayEquals(tok.idsOnly(head + markers), cache.encode(head + markers));
    assertEquals(found, cache.stats().found(), "the kept beginning is beyond the lookups");
    String fewer = "<|im_end|>".repeat(PrefixIds.MAX_LOOKUPS - 10);
    assertArrayEquals(tok.idsOnly(head + fewer), cache.encode(head + fewer));
    assertEquals(found + 1, cache.stats().found(), "within them, it is found");
  }

  /** Texts that end at a cut, start with one, or hold none are tokenized right too. */
  @Test
  void edgesOfTheCutsGiveTheWholeTextsIds() {
    String longText = content(new Random(3), 400);
    List<String> texts = List.of(
        longText,
        longText + "<|im_end|>",
        "<|im_start|>" + longText,
        longText + "<|im_end|>" + longText,
        "<|im_start|><|im_end|>" + longText + "<|im_end|><|im_end|>",
        longText + "<|im_end|> " + longText + " <|im_start|>\n");
    for (int round = 0; round < 2; round++) {
      for (String text : texts) {
        assertArrayEquals(tok.idsOnly(text), tok.encode(text), text.substring(0, 40));
      }
    }
  }

  /** The cached beginnings stay within their chars; the oldest go first. */
  @Test
  void theCacheKeepsToItsChars() {
    PrefixIds small = new PrefixIds(TokenizerSegments.of(new JsonObject(tokenizerJson())),
        tok::idsOnly, 3 * PrefixIds.MIN_CHARS);
    Random random = new Random(11);
    for (int i = 0; i < 10; i++) {
      String prompt = message("user", content(random, 400)) + "<|im_start|>assistant\n";
      assertTrue(prompt.length() >= PrefixIds.MIN_CHARS);
      assertArrayEquals(tok.idsOnly(prompt), small.encode(prompt));
      long chars = small.stats().chars();
      assertTrue(chars <= 3 * PrefixIds.MIN_CHARS, "chars " + chars);
    }
    assertTrue(small.stats().kept() >= 1);
  }

  /** Threads sharing the cache each get their own text's ids. */
  @Test
  void threadsSharingTheCacheGetTheirOwnIds() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new java.util.ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int seed = t;
        done.add(pool.submit(() -> {
          Random random = new Random(100 + seed % 2); // two pairs of threads share conversations
          StringBuilder history = new StringBuilder(message("system", content(random, 200)));
          for (int turn = 0; turn < 8; turn++) {
            history.append(message("user", content(random, 20)));
            String prompt = history + "<|im_start|>assistant\n";
            assertArrayEquals(tok.idsOnly(prompt), tok.encode(prompt));
            history.append(message("assistant", content(random, 20)));
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Why a stripping token turns cutting off: with {@code rstrip} the token takes the white space
   * after it, so the ids of the pieces are not the ids of the whole. Such a tokenizer keeps no
   * beginnings, and its texts are tokenized whole.
   */
  @Test
  void aStrippingMarkerTurnsCuttingOffAndWouldHaveChangedTheIds(@TempDir Path other)
      throws Exception {
    TokenizerFilesWriter.write(other, 1024, 4096, 3);
    JsonObject json = new JsonObject(tokenizerJson(other));
    JsonArray added = json.getJsonArray("added_tokens");
    for (int i = 0; i < added.size(); i++) {
      added.getJsonObject(i).put("rstrip", true);
    }
    Files.writeString(other.resolve(DjlTokenizer.FILE_NAME), json.encode(), StandardCharsets.UTF_8);
    try (DjlTokenizer stripping = DjlTokenizer.load(other, DjlTokenizer.PREFIX_CHARS)) {
      assertNull(stripping.prefixIds());
      String head = "<|im_start|>user\nhi<|im_end|>";
      String tail = "  \n  there";
      int[] whole = stripping.idsOnly(head + tail);
      int[] pieces = concat(stripping.idsOnly(head), stripping.idsOnly(tail));
      assertFalse(java.util.Arrays.equals(whole, pieces), "the rule's premise: rstrip reaches on");
      assertArrayEquals(whole, stripping.encode(head + tail));
    }
  }

  private static int[] concat(int[] a, int[] b) {
    int[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static String tokenizerJson() {
    return tokenizerJson(dir);
  }

  private static String tokenizerJson(Path folder) {
    try {
      return Files.readString(folder.resolve(DjlTokenizer.FILE_NAME), StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
