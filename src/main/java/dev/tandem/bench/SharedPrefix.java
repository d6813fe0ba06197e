package dev.tandem.bench;

/**
 * Shared-prefix mode ({@code --shared-prefix N:L}): N distinct prefixes of L tokens (or words for
 * text prompts) each reused by many requests; every request's prompt is one of them followed by
 * its own sampled prompt. Exercises engines' prefix caches and cache-aware routing.
 */
public record SharedPrefix(int count, int length) {

  public SharedPrefix {
    if (count < 1 || length < 1) {
      throw new IllegalArgumentException("shared prefix needs N >= 1 and L >= 1, got " + count + ":" + length);
    }
  }

  /** Parses {@code N:L}. */
  public static SharedPrefix parse(String text) {
    String[] parts = text.trim().split(":", -1);
    if (parts.length != 2) {
      throw new IllegalArgumentException("invalid shared prefix '" + text + "' (use N:L, e.g. 8:512)");
    }
    try {
      return new SharedPrefix(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("invalid shared prefix '" + text + "' (use N:L, e.g. 8:512)", e);
    }
  }

  public String spec() {
    return count + ":" + length;
  }
}
