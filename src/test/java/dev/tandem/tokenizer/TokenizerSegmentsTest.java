package dev.tandem.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which added tokens a text may be cut after, read from a tokenizer.json's fields. */
class TokenizerSegmentsTest {

  private static JsonObject added(String content) {
    return new JsonObject().put("id", 0).put("content", content).put("single_word", false)
        .put("lstrip", false).put("rstrip", false).put("normalized", false).put("special", true);
  }

  private static JsonObject tokenizer(JsonObject preTokenizer, JsonObject... added) {
    return new JsonObject().put("added_tokens", new JsonArray(List.of((Object[]) added)))
        .putNull("normalizer").put("pre_tokenizer", preTokenizer)
        .put("model", new JsonObject().put("type", "BPE").putNull("dropout"));
  }

  private static JsonObject byteLevel() {
    return new JsonObject().put("type", "ByteLevel").put("add_prefix_space", false)
        .put("use_regex", true);
  }

  @Test
  void chatMarkersAreCutPointsAndCutsFallRightAfterThem() {
    TokenizerSegments s = TokenizerSegments.of(
        tokenizer(byteLevel(), added("<|im_start|>"), added("<|im_end|>")));
    assertEquals(List.of("<|im_start|>", "<|im_end|>"), s.boundaries());
    assertNull(s.whyNone());
    String text = "<|im_start|>user\nhi <|im_<|im_end|>\n<|im_start|>";
    assertArrayEquals(new int[] {12, 35, 48}, s.cuts(text));
    assertArrayEquals(new int[0], s.cuts("no markers <| here |>"));
  }

  /**
   * A token that another contains, or whose start another ends with, can lose the
   * leftmost-longest match to it, so it is not a cut point; the others still are.
   */
  @Test
  void aTokenAnotherOverlapsIsNoCutPoint() {
    TokenizerSegments s = TokenizerSegments.of(tokenizer(byteLevel(), added("<end>"),
        added("<end>\n"), added("<sep>"), added("xx<s")));
    // "<end>" is inside "<end>\n"; "<sep>" begins with "<s", which "xx<s" ends with
    assertEquals(List.of("<end>\n", "xx<s"), s.boundaries());
    assertArrayEquals(new int[] {7, 17}, s.cuts("a<end>\nb<end>xx<sep>"));
  }

  @Test
  void anyStripOrSingleWordTokenTurnsCuttingOff() {
    for (String flag : List.of("lstrip", "rstrip", "single_word")) {
      TokenizerSegments s = TokenizerSegments.of(tokenizer(byteLevel(), added("<a>"),
          added("<b>").put(flag, true)));
      assertFalse(s.any(), flag);
      assertTrue(s.whyNone().contains(flag), s.whyNone());
    }
  }

  @Test
  void aNormalizedTokenIsNoCutPoint() {
    TokenizerSegments s = TokenizerSegments.of(tokenizer(byteLevel(), added("<a>"),
        added("word").put("normalized", true)));
    assertEquals(List.of("<a>"), s.boundaries());
  }

  @Test
  void preTokenizersThatTreatTheFirstPieceDifferentlyTurnCuttingOff() {
    JsonObject first = new JsonObject().put("type", "Metaspace").put("replacement", "\u2581")
        .put("prepend_scheme", "first").put("split", false);
    JsonObject always = first.copy().put("prepend_scheme", "always");
    JsonObject old = first.copy();
    old.remove("prepend_scheme");
    JsonObject prefixSpace = byteLevel().put("add_prefix_space", true);
    JsonObject unknown = new JsonObject().put("type", "SomethingNew");
    JsonObject split = new JsonObject().put("type", "Split").put("behavior", "Isolated");
    assertFalse(TokenizerSegments.of(tokenizer(first, added("<a>"))).any());
    assertFalse(TokenizerSegments.of(tokenizer(old, added("<a>"))).any());
    assertFalse(TokenizerSegments.of(tokenizer(prefixSpace, added("<a>"))).any());
    assertFalse(TokenizerSegments.of(tokenizer(unknown, added("<a>"))).any());
    assertFalse(TokenizerSegments.of(tokenizer(new JsonObject().put("type", "Sequence")
        .put("pretokenizers", new JsonArray().add(split).add(first)), added("<a>"))).any());
    assertTrue(TokenizerSegments.of(tokenizer(always, added("<a>"))).any());
    assertTrue(TokenizerSegments.of(tokenizer(null, added("<a>"))).any());
    assertTrue(TokenizerSegments.of(tokenizer(new JsonObject().put("type", "Sequence")
        .put("pretokenizers", new JsonArray().add(split).add(byteLevel())), added("<a>"))).any());
  }

  @Test
  void bpeDropoutTurnsCuttingOff() {
    JsonObject json = tokenizer(byteLevel(), added("<a>"));
    json.getJsonObject("model").put("dropout", 0.1);
    assertFalse(TokenizerSegments.of(json).any());
    json.getJsonObject("model").put("dropout", 0.0);
    assertTrue(TokenizerSegments.of(json).any());
  }

  @Test
  void noAddedTokensMeansNoCuts() {
    TokenizerSegments s = TokenizerSegments.of(tokenizer(byteLevel()));
    assertFalse(s.any());
    assertArrayEquals(new int[0], s.cuts("<|im_start|>"));
  }
}
