package dev.tandem.tokenizer;

import dev.tandem.bench.micro.Timing;
import java.nio.file.Files;
import java.nio.file.Path;
import io.vertx.core.json.JsonObject;
import java.util.function.Function;

/**
 * A prompt's tokenization in the router (bench/tokenizer-micro.sh): DJL's encode, which fetches
 * every field of the encoding across JNI, against the ids-only call DjlTokenizer makes, on
 * chat-shaped prompts of several lengths. The tokenizer is a model folder's tokenizer.json (the
 * first argument, when it is a folder), else one generated like the tiny preset's (32000 ids).
 * Prints a table.
 */
public final class TokenizeMicro {

  private static final String[] VOCAB = {"the", "river", "was", "low", "that", "summer,", "and",
      "people", "in", "town", "said", "it", "a", "good", "day.", "Routers", "route", "requests",
      "to", "engines"};

  private TokenizeMicro() {}

  public static void main(String[] args) throws Exception {
    int first = 0;
    Path dir;
    if (args.length > 0 && Files.isDirectory(Path.of(args[0]))) {
      dir = Path.of(args[0]);
      first = 1;
    } else {
      dir = Files.createTempDirectory("tokenize-micro");
      TokenizerFilesWriter.write(dir, 32000, 4096, 0);
      Path made = dir;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try (var files = Files.list(made)) {
          files.forEach(f -> f.toFile().delete());
        } catch (java.io.IOException ignored) {
          // a temporary folder: left behind at worst
        }
        made.toFile().delete();
      }));
    }
    int[] words = new int[args.length - first];
    for (int i = first; i < args.length; i++) {
      words[i - first] = Integer.parseInt(args[i]);
    }
    if (words.length == 0) {
      words = new int[] {8, 64, 512};
    }
    try (DjlTokenizer tok = DjlTokenizer.load(dir)) {
      WHOLE = tok::idsOnly;
      System.out.printf("# %s; ids-only call taken by encode: %s; median of 15 rounds after 15"
          + " warm-up rounds; %s %s%n", dir.resolve(DjlTokenizer.FILE_NAME), tok.encodesIdsOnly(),
          System.getProperty("java.vm.name"), System.getProperty("java.version"));
      System.out.println("| words | tokens | DJL encode, us | ids only, us | ids only / DJL |");
      System.out.println("|---:|---:|---:|---:|---:|");
      for (int n : words) {
        String prompt = prompt(n);
        int tokens = tok.idsOnly(prompt).length;
        int count = Math.max(20, 20_000 / Math.max(1, tokens));
        double djl = nsPerEncode(tok::viaDjl, prompt, count);
        double ids = nsPerEncode(tok::idsOnly, prompt, count);
        System.out.printf("| %d | %d | %.1f | %.1f | %.2f |%n", n, tokens, djl / 1000, ids / 1000,
            ids / djl);
      }
      conversations(tok, new JsonObject(Files.readString(dir.resolve(DjlTokenizer.FILE_NAME))));
    }
  }

  /**
   * A conversation's next turn: the whole prompt tokenized (as before PrefixIds) against the same
   * prompt through a cache that holds the last turn's, and through an empty cache (a first turn,
   * or a history the cache has dropped: what cutting costs when nothing is found).
   */
  private static void conversations(DjlTokenizer tok, JsonObject tokenizerJson) {
    TokenizerSegments segments = TokenizerSegments.of(tokenizerJson);
    System.out.println();
    System.out.printf("# the next turn of a conversation (an answer of 100 words, a question of"
        + " 30):"
        + " %d distinct conversations a round, the three ways in turn, median of 15 rounds after"
        + " 15 warm-up rounds;"
        + " cut points: %s%n", CONVERSATIONS, segments.any() ? segments.boundaries()
        : "none (" + segments.whyNone() + ")");
    System.out.println("| history, words | prompt tokens | whole, us | history kept, us | kept /"
        + " whole | nothing kept, us | nothing kept / whole |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|");
    for (int words : new int[] {500, 2000, 8000}) {
      String[] last = new String[CONVERSATIONS];
      String[] next = new String[CONVERSATIONS];
      for (int c = 0; c < CONVERSATIONS; c++) {
        StringBuilder history = new StringBuilder(message("system", c + " " + text(40, c)));
        for (int i = 0; history.length() < words * 5; i++) {
          history.append(message(i % 2 == 0 ? "user" : "assistant", text(100, c + i)));
        }
        last[c] = history + "<|im_start|>assistant\n";
        next[c] = last[c] + text(100, c + 1) + "<|im_end|>\n" + message("user", text(30, c + 2))
            + "<|im_start|>assistant\n";
      }
      int tokens = tok.idsOnly(next[0]).length;
      double[] ns = nsPerTurn(segments, last, next);
      System.out.printf("| %d | %d | %.1f | %.1f | %.3f | %.1f | %.2f |%n", words, tokens,
          ns[0] / 1000, ns[1] / 1000, ns[1] / ns[0], ns[2] / 1000, ns[2] / ns[0]);
    }
  }

  private static final int CONVERSATIONS = 16;

  /**
   * ns per encode of each of {@code next}, three ways taking turns within each round (so that the
   * machine's drift falls on all three): whole; through a fresh {@link PrefixIds} that first
   * (untimed) saw each of {@code last}; through a fresh, empty one. Medians of 15 rounds after 15.
   */
  private static double[] nsPerTurn(TokenizerSegments segments, String[] last, String[] next) {
    double[][] ns = new double[3][15];
    long sink = 0;
    for (int round = 0; round < 30; round++) {
      for (int way = 0; way < 3; way++) {
        Function<String, int[]> encode = WHOLE;
        if (way > 0) {
          PrefixIds cache = new PrefixIds(segments, WHOLE, 1L << 30);
          for (int c = 0; way == 1 && c < last.length; c++) {
            sink += cache.encode(last[c]).length;
          }
          encode = cache::encode;
        }
        long t0 = System.nanoTime();
        for (String text : next) {
          sink += encode.apply(text).length;
        }
        if (round >= 15) {
          ns[way][round - 15] = (System.nanoTime() - t0) / (double) next.length;
        }
      }
    }
    if (sink == 42) {
      System.out.print("");
    }
    double[] medians = new double[3];
    for (int way = 0; way < 3; way++) {
      java.util.Arrays.sort(ns[way]);
      medians[way] = ns[way][7];
    }
    return medians;
  }

  /** Set by main: the tokenizer's own whole-text encoding, for the caches. */
  private static Function<String, int[]> WHOLE;

  private static String message(String role, String content) {
    return "<|im_start|>" + role + "\n" + content + "<|im_end|>\n";
  }

  /** {@code words} words, varied by {@code seed}. */
  private static String text(int words, int seed) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < words; i++) {
      sb.append(i == 0 ? "" : " ").append(VOCAB[(i * 7 + seed * 3) % VOCAB.length]);
    }
    return sb.toString();
  }

  /** ns per encode of {@code prompt} by {@code encode}: median of 15 rounds after 15 warm-ups. */
  private static double nsPerEncode(Function<String, int[]> encode, String prompt, int count) {
    return Timing.nsPerOp(c -> {
      long s = 0;
      for (int i = 0; i < c; i++) {
        s += encode.apply(prompt).length;
      }
      return s;
    }, count, 15);
  }

  /** A one-message chat as a ChatML template renders it, the message {@code words} words long. */
  private static String prompt(int words) {
    String[] vocab = VOCAB;
    StringBuilder sb = new StringBuilder(
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n");
    for (int i = 0; i < words; i++) {
      sb.append(i == 0 ? "" : " ").append(vocab[(i * 7) % vocab.length]);
    }
    return sb.append("<|im_end|>\n<|im_start|>assistant\n").toString();
  }
}
