package dev.tandem.bench;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A distribution of token counts (prompt or output length): {@code N} (fixed),
 * {@code uniform:A-B} (inclusive) or {@code lognormal:MEAN,SIGMA} (MEAN is the mean of the lengths
 * themselves, SIGMA the standard deviation of their logarithm). Samples are at least 1.
 */
public sealed interface LengthDistribution {

  /** Draws one length. Deterministic for a given random state. */
  int sample(SplittableRandom random);

  /** The text form this distribution was parsed from, normalised. */
  String spec();

  /** Expected value, used for the offered-load summary. */
  double mean();

  record Fixed(int length) implements LengthDistribution {
    public Fixed {
      if (length < 1) {
        throw new IllegalArgumentException("length must be >= 1, got " + length);
      }
    }

    @Override
    public int sample(SplittableRandom random) {
      return length;
    }

    @Override
    public String spec() {
      return Integer.toString(length);
    }

    @Override
    public double mean() {
      return length;
    }
  }

  record Uniform(int min, int max) implements LengthDistribution {
    public Uniform {
      if (min < 1 || max < min) {
        throw new IllegalArgumentException("uniform needs 1 <= A <= B, got " + min + "-" + max);
      }
    }

    @Override
    public int sample(SplittableRandom random) {
      return min + random.nextInt(max - min + 1);
    }

    @Override
    public String spec() {
      return "uniform:" + min + "-" + max;
    }

    @Override
    public double mean() {
      return (min + max) / 2.0;
    }
  }

  record LogNormal(double mean, double sigma) implements LengthDistribution {
    public LogNormal {
      if (!(mean >= 1) || !(sigma >= 0) || Double.isInfinite(mean) || Double.isInfinite(sigma)) {
        throw new IllegalArgumentException("lognormal needs MEAN >= 1 and SIGMA >= 0, got " + mean + "," + sigma);
      }
    }

    @Override
    public int sample(SplittableRandom random) {
      // mu chosen so that E[X] = mean: E[exp(N(mu, s^2))] = exp(mu + s^2 / 2).
      double mu = Math.log(mean) - sigma * sigma / 2;
      double x = Math.exp(mu + sigma * gaussian(random));
      return (int) Math.max(1, Math.min(Integer.MAX_VALUE / 2, Math.round(x)));
    }

    @Override
    public String spec() {
      return String.format(Locale.ROOT, "lognormal:%s,%s", trim(mean), trim(sigma));
    }

    private static String trim(double v) {
      return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    /** Box-Muller: SplittableRandom has no nextGaussian on Java 17. */
    private static double gaussian(SplittableRandom random) {
      double u1 = 1.0 - random.nextDouble(); // (0, 1], so log is finite
      double u2 = random.nextDouble();
      return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }
  }

  /** Parses {@code N}, {@code uniform:A-B} or {@code lognormal:MEAN,SIGMA}. */
  static LengthDistribution parse(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    try {
      if (s.startsWith("uniform:")) {
        String[] ab = s.substring("uniform:".length()).split("-", -1);
        if (ab.length != 2) {
          throw new IllegalArgumentException("expected uniform:A-B");
        }
        return new Uniform(Integer.parseInt(ab[0].trim()), Integer.parseInt(ab[1].trim()));
      }
      if (s.startsWith("lognormal:")) {
        String[] ms = s.substring("lognormal:".length()).split(",", -1);
        if (ms.length != 2) {
          throw new IllegalArgumentException("expected lognormal:MEAN,SIGMA");
        }
        return new LogNormal(Double.parseDouble(ms[0].trim()), Double.parseDouble(ms[1].trim()));
      }
      return new Fixed(Integer.parseInt(s));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid length '" + text
          + "' (use N, uniform:A-B or lognormal:MEAN,SIGMA): " + e.getMessage(), e);
    }
  }
}
