package dev.tandem.bench.micro;

import dev.tandem.api.PromptMicro;

/**
 * The router's per-request steps that grow with the prompt, in isolation (bench/request-micro.sh):
 * a completion body read and checked, and its engine body written, for prompts of several
 * lengths. Prints a table.
 */
public final class RequestMicro {

  private RequestMicro() {}

  public static void main(String[] args) {
    int[] lengths = args.length > 0 ? java.util.Arrays.stream(args).mapToInt(Integer::parseInt)
        .toArray() : new int[] {32, 256, 1024, 4096};
    System.out.printf("# token-id prompts; median of 15 rounds after 15 warm-up rounds; %s %s%n",
        System.getProperty("java.vm.name"), System.getProperty("java.version"));
    System.out.println("| prompt tokens | read and checked, us | + engine body once, us "
        + "| + three bodies, us | ns per prompt token (once) |");
    System.out.println("|---:|---:|---:|---:|---:|");
    for (int len : lengths) {
      double[] r = PromptMicro.nsPerRequest(len);
      System.out.printf("| %d | %.2f | %.2f | %.2f | %.1f |%n", len, r[0] / 1000, r[1] / 1000,
          r[2] / 1000, r[1] / len);
    }
  }
}
