package dev.tandem.bench;

import java.util.ArrayList;
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
  private static final long CONVERSATION_SALT = 0x2545f491_4f6cdd1dL;

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
    MultiTurn mt = spec.multiTurn();
    if (mt != null) {
      return conversation(index / mt.turns()).turn((int) (index % mt.turns()), index);
    }
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
      return PlannedRequest.ofIds(index, c.name(), all, prefixIndex, prefixLen + promptLen, maxTokens);
    }
    // The request number leads the unique part so no two text prompts share more than the prefix.
    String own = words(r, promptLen, "#" + index + " ");
    String system = prefixIndex < 0 ? null : (String) prefixes.get(prefixIndex);
    return PlannedRequest.ofText(index, c.name(), system, List.of(own), prefixIndex,
        prefixLen + promptLen, maxTokens);
  }

  /** Turns of conversation {@code c} that fit the context limit (at least 1). */
  public int turnsOf(long conversation) {
    return conversation(conversation).turns;
  }

  /** One conversation, drawn from its own random stream: class, prefix, messages and replies. */
  private Conversation conversation(long c) {
    MultiTurn mt = spec.multiTurn();
    SplittableRandom r = new SplittableRandom(mix(spec.seed() ^ CONVERSATION_SALT, c));
    WorkloadClass cls = pickClass(r.nextDouble() * cumulativeWeights[cumulativeWeights.length - 1]);
    int prefixIndex = prefixes.isEmpty() ? -1 : r.nextInt(prefixes.size());
    Object[] parts = new Object[2 * mt.turns()];
    int[] units = new int[2 * mt.turns()];
    for (int t = 0; t < mt.turns(); t++) {
      units[2 * t] = cls.promptLength().sample(r);
      units[2 * t + 1] = cls.outputLength().sample(r);
      boolean ids = spec.promptKind() == PromptKind.IDS;
      parts[2 * t] = ids ? ids(r, units[2 * t])
          : words(r, units[2 * t], t == 0 ? "#" + c + " " : "");
      parts[2 * t + 1] = ids ? ids(r, units[2 * t + 1]) : words(r, units[2 * t + 1], "");
    }
    return new Conversation(cls, prefixIndex, parts, units, mt.contextLimit());
  }

  /** Turn t's prompt: the shared prefix (if any), then user 0, reply 0, ..., user t. */
  private final class Conversation {
    final WorkloadClass cls;
    final int prefixIndex;
    final Object[] parts;
    final int[] units;
    final int turns;

    Conversation(WorkloadClass cls, int prefixIndex, Object[] parts, int[] units, int limit) {
      this.cls = cls;
      this.prefixIndex = prefixIndex;
      this.parts = parts;
      this.units = units;
      int fit = 1;
      int prefixLen = prefixIndex < 0 ? 0 : spec.sharedPrefix().length();
      for (int t = 1; t < units.length / 2; t++) {
        int need = prefixLen;
        for (int i = 0; i <= 2 * t + 1; i++) {
          need += units[i];
        }
        if (need > limit) {
          break;
        }
        fit = t + 1;
      }
      this.turns = fit;
    }

    PlannedRequest turn(int t, long index) {
      int promptUnits = prefixIndex < 0 ? 0 : spec.sharedPrefix().length();
      for (int i = 0; i <= 2 * t; i++) {
        promptUnits += units[i];
      }
      int maxTokens = units[2 * t + 1];
      if (spec.promptKind() == PromptKind.IDS) {
        int[] all = new int[promptUnits];
        int at = 0;
        if (prefixIndex >= 0) {
          int[] prefix = (int[]) prefixes.get(prefixIndex);
          System.arraycopy(prefix, 0, all, 0, prefix.length);
          at = prefix.length;
        }
        for (int i = 0; i <= 2 * t; i++) {
          int[] part = (int[]) parts[i];
          System.arraycopy(part, 0, all, at, part.length);
          at += part.length;
        }
        return PlannedRequest.ofIds(index, cls.name(), all, prefixIndex, promptUnits, maxTokens);
      }
      List<String> turns = new ArrayList<>();
      for (int i = 0; i <= 2 * t; i++) {
        turns.add((String) parts[i]);
      }
      return PlannedRequest.ofText(index, cls.name(),
          prefixIndex < 0 ? null : (String) prefixes.get(prefixIndex), turns, prefixIndex,
          promptUnits, maxTokens);
    }
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
