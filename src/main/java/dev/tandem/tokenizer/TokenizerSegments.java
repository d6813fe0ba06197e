package dev.tandem.tokenizer;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where a text may be cut so that its pieces, tokenized one by one, give the ids of the whole:
 * right after an added token that the tokenizer is certain to split on. Hugging Face tokenizers
 * first split the input at its added tokens (leftmost-longest), then normalize, pre-tokenize and
 * model each piece on its own, so a cut after such a token changes nothing, provided that:
 * <ul>
 *   <li>no added token strips white space or needs a word of its own ({@code lstrip},
 *       {@code rstrip}, {@code single_word}: those reach across a piece's edge);</li>
 *   <li>the token is matched in the raw text ({@code normalized: false}), and no other added token
 *       contains it or overlaps its start, so every occurrence of it in a text is a split;</li>
 *   <li>the pre-tokenizer treats every piece alike (Metaspace's {@code prepend_scheme: first}
 *       does not: only the text's first piece gets the prefix), and the model is deterministic
 *       (no BPE dropout).</li>
 * </ul>
 * Anything not known to satisfy these (another pre-tokenizer type, a missing field) gives no cut
 * points, and the tokenizer encodes every text whole. No special tokens are added to the pieces
 * or the whole (the post-processor does not run: {@link DjlTokenizer}).
 */
final class TokenizerSegments {
  /** Pre-tokenizers that split each piece by its own content alone. */
  private static final Set<String> PIECEWISE_PRE_TOKENIZERS = Set.of("ByteLevel", "Split",
      "Digits", "Punctuation", "Whitespace", "WhitespaceSplit", "BertPreTokenizer",
      "UnicodeScripts", "Metaspace", "Sequence");

  private static final TokenizerSegments NONE = new TokenizerSegments(List.of(), "no cut points");

  private final List<String> boundaries;
  private final String whyNone;
  /** The boundary tokens as a trie over their chars (root's children by first char). */
  private final Node root = new Node();
  /** The chars boundary tokens start with. */
  private final char[] firstChars;

  private TokenizerSegments(List<String> boundaries, String whyNone) {
    this.boundaries = List.copyOf(boundaries);
    this.whyNone = whyNone;
    for (String b : boundaries) {
      Node n = root;
      for (int i = 0; i < b.length(); i++) {
        n = n.children.computeIfAbsent(b.charAt(i), c -> new Node());
      }
      n.length = b.length();
    }
    StringBuilder firsts = new StringBuilder();
    for (char c : root.children.keySet()) {
      firsts.append(c);
    }
    this.firstChars = firsts.toString().toCharArray();
  }

  /** The cut points a {@code tokenizer.json} allows (none, with the reason, where unsure). */
  static TokenizerSegments of(JsonObject tokenizerJson) {
    try {
      String why = whyNotPiecewise(tokenizerJson);
      if (why != null) {
        return new TokenizerSegments(List.of(), why);
      }
      JsonArray added = tokenizerJson.getJsonArray("added_tokens");
      List<JsonObject> tokens = new ArrayList<>();
      for (int i = 0; added != null && i < added.size(); i++) {
        tokens.add(added.getJsonObject(i));
      }
      for (JsonObject t : tokens) {
        for (String flag : List.of("lstrip", "rstrip", "single_word")) {
          if (!Boolean.FALSE.equals(t.getValue(flag))) {
            return new TokenizerSegments(List.of(), "added token " + t.getString("content")
                + " has " + flag + " " + t.getValue(flag));
          }
        }
      }
      List<String> boundaries = new ArrayList<>();
      for (JsonObject t : tokens) {
        String content = t.getString("content");
        if (Boolean.FALSE.equals(t.getValue("normalized")) && content != null && !content.isEmpty()
            && standsAlone(content, tokens)) {
          boundaries.add(content);
        }
      }
      return boundaries.isEmpty() ? new TokenizerSegments(List.of(), "no added token stands alone")
          : new TokenizerSegments(boundaries, null);
    } catch (ClassCastException e) {
      return new TokenizerSegments(List.of(), "unexpected tokenizer.json: " + e.getMessage());
    }
  }

  static TokenizerSegments none() {
    return NONE;
  }

  /** Null where every piece is pre-tokenized and modelled alike; else why not. */
  private static String whyNotPiecewise(JsonObject json) {
    JsonObject model = json.getJsonObject("model");
    if (model == null) {
      return "no model";
    }
    Object dropout = model.getValue("dropout");
    if (dropout != null && ((Number) dropout).doubleValue() != 0) {
      return "BPE dropout " + dropout;
    }
    return whyNotPiecewisePreTokenizer(json.getJsonObject("pre_tokenizer"));
  }

  private static String whyNotPiecewisePreTokenizer(JsonObject pre) {
    if (pre == null) {
      return null;
    }
    String type = pre.getString("type");
    if (!PIECEWISE_PRE_TOKENIZERS.contains(type)) {
      return "pre-tokenizer " + type;
    }
    switch (type) {
      case "Metaspace":
        // "always" and "never" treat every piece alike; "first" (and the old form without a
        // scheme, whose behaviour changed between versions) do not
        String scheme = pre.getString("prepend_scheme");
        return "always".equals(scheme) || "never".equals(scheme) ? null
            : "Metaspace with prepend_scheme " + scheme;
      case "ByteLevel":
        return Boolean.TRUE.equals(pre.getValue("add_prefix_space"))
            ? "ByteLevel with add_prefix_space" : null;
      case "Sequence":
        JsonArray parts = pre.getJsonArray("pretokenizers");
        if (parts == null) {
          return "Sequence without pretokenizers";
        }
        for (int i = 0; i < parts.size(); i++) {
          String why = whyNotPiecewisePreTokenizer(parts.getJsonObject(i));
          if (why != null) {
            return why;
          }
        }
        return null;
      default:
        return null;
    }
  }

  /**
   * Whether every occurrence of {@code token} in a text is one of the tokenizer's splits: no
   * other added token contains it or ends with the start of it (either would win the
   * leftmost-longest match over it).
   */
  private static boolean standsAlone(String token, List<JsonObject> tokens) {
    for (JsonObject t : tokens) {
      String other = t.getString("content");
      if (other == null || other.equals(token)) {
        continue;
      }
      if (other.contains(token)) {
        return false;
      }
      for (int k = 1; k < other.length() && k < token.length(); k++) {
        if (other.regionMatches(other.length() - k, token, 0, k)) {
          return false;
        }
      }
    }
    return true;
  }

  boolean any() {
    return !boundaries.isEmpty();
  }

  /** The tokens after which a text may be cut (empty: none). */
  List<String> boundaries() {
    return boundaries;
  }

  /** Why there are no cut points (null where there are). */
  String whyNone() {
    return whyNone;
  }

  /**
   * The positions in {@code text} right after each occurrence of a boundary token, in order
   * (an occurrence never overlaps another: {@link #standsAlone}). Empty where there are none.
   */
  int[] cuts(String text) {
    if (boundaries.isEmpty()) {
      return new int[0];
    }
    int[] cuts = new int[8];
    int n = 0;
    int length = text.length();
    // where each first char occurs next (the JDK's indexOf is vectorised; a char-by-char walk
    // cost about 5 ns a char)
    int[] next = new int[firstChars.length];
    for (int k = 0; k < firstChars.length; k++) {
      next[k] = text.indexOf(firstChars[k]);
    }
    int i = nearest(next);
    while (i >= 0) {
      int end = matchAt(text, i);
      if (end > 0) {
        if (n == cuts.length) {
          cuts = Arrays.copyOf(cuts, n * 2);
        }
        cuts[n++] = end;
      }
      int from = end > 0 ? end : i + 1;
      for (int k = 0; k < next.length; k++) {
        if (next[k] >= 0 && next[k] < from) {
          next[k] = text.indexOf(firstChars[k], from);
        }
      }
      i = nearest(next);
    }
    return Arrays.copyOf(cuts, n);
  }

  private static int nearest(int[] next) {
    int min = -1;
    for (int p : next) {
      if (p >= 0 && (min < 0 || p < min)) {
        min = p;
      }
    }
    return min;
  }

  /** The end of the boundary token at {@code i} of {@code text}; 0 where none starts there. */
  private int matchAt(String text, int i) {
    Node node = root;
    for (int j = i; j < text.length(); j++) {
      node = node.children.get(text.charAt(j));
      if (node == null) {
        return 0;
      }
      if (node.length > 0) {
        return i + node.length;
      }
    }
    return 0;
  }

  private static final class Node {
    final Map<Character, Node> children = new HashMap<>(4);
    /** The length of the boundary token ending here; 0 where none does. */
    int length;
  }
}
