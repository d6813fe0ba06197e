package dev.tandem.tokenizer;

import dev.tandem.bench.micro.Timing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * A prompt's tokenization in the router (bench/tokenizer-micro.sh): DJL's encode, which fetches
 * every field of the encoding across JNI, against the ids-only call DjlTokenizer makes, on
 * chat-shaped prompts of several lengths. The tokenizer is a model folder's tokenizer.json (the
 * first argument, when it is a folder), else one generated like the tiny preset's (32000 ids).
 * Prints a table.
 */
public final class TokenizeMicro {

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
    }
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
    String[] vocab = {"the", "river", "was", "low", "that", "summer,", "and", "people", "in",
        "town", "said", "it", "a", "good", "day.", "Routers", "route", "requests", "to", "engines"};
    StringBuilder sb = new StringBuilder(
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n");
    for (int i = 0; i < words; i++) {
      sb.append(i == 0 ? "" : " ").append(vocab[(i * 7) % vocab.length]);
    }
    return sb.append("<|im_end|>\n<|im_start|>assistant\n").toString();
  }
}
