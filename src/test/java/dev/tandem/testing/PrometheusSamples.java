package dev.tandem.testing;

import java.util.HashMap;
import java.util.Map;

/**
 * Reads the sample lines of a Prometheus text page ({@code name{labels} value}) for tests that
 * check a /metrics page; comments and malformed lines are skipped. Keys keep their labels
 * verbatim, e.g. {@code tandem_inflight{engine="0",role="prefill"}}.
 */
public final class PrometheusSamples {

  private PrometheusSamples() {}

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
      String rest = line.substring(split).strip();
      int end = indexOfWhitespace(rest, 0);
      try {
        out.put(line.substring(0, split), Double.parseDouble(end < 0 ? rest : rest.substring(0, end)));
      } catch (NumberFormatException e) {
        // not a sample line
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
