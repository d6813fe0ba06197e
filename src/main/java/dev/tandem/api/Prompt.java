package dev.tandem.api;

import java.util.Arrays;

/** A completion prompt: either text (tokenized by the server) or token ids. Exactly one is set. */
public record Prompt(String text, int[] tokenIds) {

  public static Prompt ofText(String text) {
    return new Prompt(text, null);
  }

  public static Prompt ofTokens(int[] ids) {
    return new Prompt(null, ids);
  }

  public boolean isText() {
    return text != null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Prompt p && java.util.Objects.equals(text, p.text)
        && Arrays.equals(tokenIds, p.tokenIds);
  }

  @Override
  public int hashCode() {
    return 31 * java.util.Objects.hashCode(text) + Arrays.hashCode(tokenIds);
  }

  @Override
  public String toString() {
    return isText() ? "Prompt[text=" + text.length() + " chars]" : "Prompt[" + tokenIds.length + " ids]";
  }
}
