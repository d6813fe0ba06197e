package dev.tandem.bench;

/**
 * One class of requests in a workload: its prompt and output length distributions and its share
 * of arrivals (relative weight). A plain workload has one class named {@code default}; a mix (for
 * the disaggregation benchmark) has several, e.g. long prompts with short answers beside short
 * prompts with long answers.
 */
public record WorkloadClass(String name, LengthDistribution promptLength,
    LengthDistribution outputLength, double weight) {

  public static final String DEFAULT_NAME = "default";

  public WorkloadClass {
    if (name == null || name.isBlank() || !name.matches("[A-Za-z0-9_.-]+")) {
      throw new IllegalArgumentException("class name must be letters, digits, '_', '.', '-': '" + name + "'");
    }
    if (!(weight > 0) || Double.isInfinite(weight)) {
      throw new IllegalArgumentException("class weight must be > 0, got " + weight);
    }
  }

  /**
   * Parses one {@code --mix} entry: {@code [NAME=]PROMPT/OUTPUT[@WEIGHT]}, where PROMPT and OUTPUT
   * are {@link LengthDistribution} specs, e.g. {@code long=1024/16@3} or
   * {@code chat=lognormal:200,0.5/uniform:64-256}. Unnamed classes are called {@code cN}.
   */
  public static WorkloadClass parseMixEntry(String text, int position) {
    String s = text.trim();
    String name = "c" + position;
    int eq = s.indexOf('=');
    if (eq >= 0) {
      name = s.substring(0, eq).trim();
      s = s.substring(eq + 1);
    }
    double weight = 1;
    int at = s.lastIndexOf('@');
    if (at >= 0) {
      try {
        weight = Double.parseDouble(s.substring(at + 1).trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("invalid weight in mix entry '" + text + "'");
      }
      s = s.substring(0, at);
    }
    int slash = s.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException("mix entry '" + text
          + "' must be [NAME=]PROMPT/OUTPUT[@WEIGHT], e.g. long=1024/16@3");
    }
    return new WorkloadClass(name, LengthDistribution.parse(s.substring(0, slash)),
        LengthDistribution.parse(s.substring(slash + 1)), weight);
  }

  /** The mix entry form of this class, as accepted by {@link #parseMixEntry}. */
  public String spec() {
    String w = weight == Math.rint(weight) ? Long.toString((long) weight) : Double.toString(weight);
    return name + "=" + promptLength.spec() + "/" + outputLength.spec() + "@" + w;
  }
}
