package dev.tandem.tokenizer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds a byte-level BPE vocabulary of an exact size: special tokens, the 256 byte tokens (in
 * GPT-2's printable byte alphabet), merges learned from a text, then seeded merges of existing
 * tokens until the vocabulary is full. Every step is deterministic (no hash-order dependence).
 */
public final class ByteLevelBpe {

  /** GPT-2's pre-tokenizer split, which Hugging Face's ByteLevel pre-tokenizer also uses. */
  static final Pattern GPT2_SPLIT =
      Pattern.compile("'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+");
  /** Longest token (in alphabet characters) the random fill creates, keeping the vocabulary compact. */
  private static final int MAX_FILL_TOKEN_CHARS = 10;

  /** Token strings by id, and merges in rank order as "left right". */
  public record Vocabulary(List<String> tokens, List<String> merges) {}

  private ByteLevelBpe() {}

  /** GPT-2's bytes_to_unicode: byte b is written as the character {@code alphabet()[b]}. */
  public static char[] alphabet() {
    char[] map = new char[256];
    boolean[] printable = new boolean[256];
    for (int b = '!'; b <= '~'; b++) {
      printable[b] = true;
    }
    for (int b = 0xA1; b <= 0xAC; b++) {
      printable[b] = true;
    }
    for (int b = 0xAE; b <= 0xFF; b++) {
      printable[b] = true;
    }
    int extra = 0;
    for (int b = 0; b < 256; b++) {
      map[b] = printable[b] ? (char) b : (char) (256 + extra++);
    }
    return map;
  }

  /**
   * A vocabulary of exactly {@code vocabSize} tokens: {@code specials} first (ids 0..), then bytes,
   * then merges learned from {@code text}, then seeded fill merges.
   */
  public static Vocabulary build(List<String> specials, int vocabSize, String text, long seed) {
    char[] alpha = alphabet();
    List<String> tokens = new ArrayList<>(specials);
    int firstByte = tokens.size();
    for (int b = 0; b < 256; b++) {
      tokens.add(String.valueOf(alpha[b]));
    }
    if (vocabSize < tokens.size()) {
      throw new IllegalArgumentException("vocab size " + vocabSize + " is below " + tokens.size()
          + " (special tokens + 256 bytes)");
    }
    Map<String, Integer> ids = new HashMap<>();
    for (int i = 0; i < tokens.size(); i++) {
      ids.put(tokens.get(i), i);
    }
    List<String> merges = new ArrayList<>();
    learn(text, vocabSize, tokens, ids, merges, firstByte);
    fill(vocabSize, seed, tokens, ids, merges, firstByte);
    return new Vocabulary(List.copyOf(tokens), List.copyOf(merges));
  }

  private static void learn(String text, int vocabSize, List<String> tokens, Map<String, Integer> ids,
      List<String> merges, int firstByte) {
    Map<String, Integer> wordCounts = new TreeMap<>();
    Matcher m = GPT2_SPLIT.matcher(text);
    while (m.find()) {
      wordCounts.merge(m.group(), 1, Integer::sum);
    }
    List<int[]> words = new ArrayList<>();
    List<Integer> counts = new ArrayList<>();
    for (Map.Entry<String, Integer> e : wordCounts.entrySet()) {
      byte[] bytes = e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8);
      int[] syms = new int[bytes.length];
      for (int i = 0; i < bytes.length; i++) {
        syms[i] = firstByte + (bytes[i] & 0xff);
      }
      words.add(syms);
      counts.add(e.getValue());
    }
    while (tokens.size() < vocabSize) {
      Map<Long, Integer> pairs = new HashMap<>();
      for (int w = 0; w < words.size(); w++) {
        int[] s = words.get(w);
        for (int i = 0; i + 1 < s.length; i++) {
          pairs.merge(((long) s[i] << 32) | s[i + 1], counts.get(w), Integer::sum);
        }
      }
      long best = -1;
      int bestCount = 1;
      for (Map.Entry<Long, Integer> e : pairs.entrySet()) {
        int c = e.getValue();
        if (c > bestCount || (c == bestCount && best >= 0 && e.getKey() < best)) {
          best = e.getKey();
          bestCount = c;
        }
      }
      if (best < 0) {
        return; // no pair occurs twice: the text has taught all it can
      }
      int left = (int) (best >>> 32);
      int right = (int) best;
      int id = add(tokens, ids, merges, left, right);
      for (int w = 0; w < words.size(); w++) {
        words.set(w, replace(words.get(w), left, right, id));
      }
    }
  }

  private static void fill(int vocabSize, long seed, List<String> tokens, Map<String, Integer> ids,
      List<String> merges, int firstByte) {
    SplittableRandom rng = new SplittableRandom(seed ^ 0x5DEECE66DL);
    while (tokens.size() < vocabSize) {
      int left = firstByte + rng.nextInt(tokens.size() - firstByte);
      int right = firstByte + rng.nextInt(tokens.size() - firstByte);
      String joined = tokens.get(left) + tokens.get(right);
      if (joined.length() <= MAX_FILL_TOKEN_CHARS && !ids.containsKey(joined)) {
        add(tokens, ids, merges, left, right);
      }
    }
  }

  /** Records the merge; a string some earlier merge already made keeps its id (as HF's trainer does). */
  private static int add(List<String> tokens, Map<String, Integer> ids, List<String> merges, int left, int right) {
    String joined = tokens.get(left) + tokens.get(right);
    merges.add(tokens.get(left) + " " + tokens.get(right));
    Integer existing = ids.get(joined);
    if (existing != null) {
      return existing;
    }
    int id = tokens.size();
    tokens.add(joined);
    ids.put(joined, id);
    return id;
  }

  private static int[] replace(int[] s, int left, int right, int id) {
    int[] out = new int[s.length];
    int n = 0;
    for (int i = 0; i < s.length; i++) {
      if (i + 1 < s.length && s[i] == left && s[i + 1] == right) {
        out[n++] = id;
        i++;
      } else {
        out[n++] = s[i];
      }
    }
    return n == s.length ? s : java.util.Arrays.copyOf(out, n);
  }
}
