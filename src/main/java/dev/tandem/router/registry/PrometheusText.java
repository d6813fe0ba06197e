package dev.tandem.router.registry;

import java.util.HashMap;
import java.util.Map;

/**
 * Reads the sample lines of a Prometheus text page ({@code name{labels} value}, or MLC's
 * {@code name<TAB>value}); comments and malformed lines are skipped. Keys keep their labels
 * verbatim, e.g. {@code decode_time_by_batch_size_mean{batch_size=4}}.
 */
public final class PrometheusText {

  private PrometheusText() {}

  public static Map<String, Double> parse(String text) {
    Map<String, Double> out = new HashMap<>();
    for (String raw : text.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int close = line.lastIndexOf('}');
      int split = indexOfWhitespace(line, close < 0 ? 0 : close + 1);
      if (split < 0) {
        continue;
      }
      String name = line.substring(0, split);
      String rest = line.substring(split).strip();
      int end = indexOfWhitespace(rest, 0);
      String value = end < 0 ? rest : rest.substring(0, end); // a timestamp may follow
      try {
        out.put(name, Double.parseDouble(value));
      } catch (NumberFormatException e) {
        // not a sample line: ignore
      }
    }
    return out;
  }

  private static int indexOfWhitespace(String s, int from) {
    for (int i = from; i < s.length(); i++) {
      if (Character.isWhitespace(s.charAt(i))) {
        return i;
      }
    }
    return -1;
  }
}
