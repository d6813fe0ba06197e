package dev.tandem.bench;

import java.util.List;
import java.util.SplittableRandom;

/**
 * Turns a {@link WorkloadSpec} into {@link PlannedRequest}s. Request {@code i} depends only on the
 * seed and {@code i} (each request has its own random stream), so two runs with the same seed send
 * the same requests in the same order, whatever the arrival process or concurrency.
 */
public final class WorkloadGenerator {

  /** Words for text prompts: common, short, and mostly one or two tokens in byte-level BPEs. */
  private static final String[] WORDS = ("the of and to in is was for on that with as by at from it "
      + "an be this which or are not but had his they have one all were we when there can more "
      + "if out so what up about into than them only other new some time could these two may "
      + "first then do any like my now over such our man me even most made after also did many "
      + "before must through back years where much your way well down should because each just "
      + "those people how too little state good very make world still own see men work long get "
      + "here between both life being under never day same another know while last might us great "
      + "old year off come since against go came right used take three").split(" ");

  private static final long PREFIX_SALT = 0x5f3759df_9e3779b9L;

  private final WorkloadSpec spec;
  private final double[] cumulativeWeights;
  private final List<Object> prefixes; // String or int[]

  public WorkloadGenerator(WorkloadSpec spec) {
    this.spec = spec;
    List<WorkloadClass> classes = spec.classes();
    cumulativeWeights = new double[classes.size()];
    double sum = 0;
    for (int i = 0; i < classes.size(); i++) {
      sum += classes.get(i).weight();
      cumulativeWeights[i] = sum;
    }
    SharedPrefix sp = spec.sharedPrefix();
    Object[] made = new Object[sp == null ? 0 : sp.count()];
    for (int k = 0; k < made.length; k++) {
      SplittableRandom r = new SplittableRandom(mix(spec.seed() ^ PREFIX_SALT, k));
      made[k] = spec.promptKind() == PromptKind.IDS ? ids(r, sp.length()) : words(r, sp.length(), "");
    }
    prefixes = List.of(made);
  }

  public WorkloadSpec spec() {
    return spec;
  }

  /** The request at position {@code index}; pure function of the seed and the index. */
  public PlannedRequest request(long index) {
    SplittableRandom r = new SplittableRandom(mix(spec.seed(), index));
    WorkloadClass c = pickClass(r.nextDouble() * cumulativeWeights[cumulativeWeights.length - 1]);
    int promptLen = c.promptLength().sample(r);
    int maxTokens = c.outputLength().sample(r);
    int prefixIndex = prefixes.isEmpty() ? -1 : r.nextInt(prefixes.size());
    int prefixLen = prefixIndex < 0 ? 0 : spec.sharedPrefix().length();
    if (spec.promptKind() == PromptKind.IDS) {
      int[] own = ids(r, promptLen);
      int[] all = own;
      if (prefixIndex >= 0) {
        int[] prefix = (int[]) prefixes.get(prefixIndex);
        all = new int[prefix.length + own.length];
        System.arraycopy(prefix, 0, all, 0, prefix.length);
        System.arraycopy(own, 0, all, prefix.length, own.length);
      }
      return new PlannedRequest(index, c.name(), null, all, prefixIndex, prefixLen + promptLen, maxTokens);
    }
    // The request number leads the unique part so no two text prompts share more than the prefix.
    String own = words(r, promptLen, "#" + index + " ");
    String text = prefixIndex < 0 ? own : prefixes.get(prefixIndex) + " " + own;
    return new PlannedRequest(index, c.name(), text, null, prefixIndex, prefixLen + promptLen, maxTokens);
  }

  private WorkloadClass pickClass(double u) {
    for (int i = 0; i < cumulativeWeights.length; i++) {
      if (u < cumulativeWeights[i]) {
        return spec.classes().get(i);
      }
    }
    return spec.classes().get(cumulativeWeights.length - 1);
  }

  private int[] ids(SplittableRandom r, int n) {
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = r.nextInt(spec.firstTokenId(), spec.vocabSize());
    }
    return out;
  }

  private static String words(SplittableRandom r, int n, String lead) {
    StringBuilder sb = new StringBuilder(lead.length() + n * 5).append(lead);
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append(' ');
      }
      sb.append(WORDS[r.nextInt(WORDS.length)]);
    }
    return sb.toString();
  }

  /** SplitMix64 finaliser over (seed, index): independent streams for neighbouring indices. */
  static long mix(long seed, long index) {
    long z = seed + 0x9e3779b97f4a7c15L * (index + 1);
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
