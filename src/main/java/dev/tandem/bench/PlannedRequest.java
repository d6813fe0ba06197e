package dev.tandem.bench;

import java.util.Arrays;

/**
 * One request of a workload, fully decided before sending: which class it belongs to, its prompt
 * (text or token ids), how many prompt units it has and how many tokens it asks for.
 *
 * @param index 0-based position in the run (warm-up requests included)
 * @param prefixIndex which shared prefix it starts with, or -1
 * @param promptUnits tokens for id prompts, words for text prompts (shared prefix included)
 */
public record PlannedRequest(long index, String className, String promptText, int[] promptIds,
    int prefixIndex, int promptUnits, int maxTokens) {

  public boolean hasIdPrompt() {
    return promptIds != null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PlannedRequest p && index == p.index && className.equals(p.className)
        && java.util.Objects.equals(promptText, p.promptText) && Arrays.equals(promptIds, p.promptIds)
        && prefixIndex == p.prefixIndex && promptUnits == p.promptUnits && maxTokens == p.maxTokens;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(index, className, promptText, Arrays.hashCode(promptIds), prefixIndex,
        promptUnits, maxTokens);
  }

  @Override
  public String toString() {
    return "PlannedRequest[" + index + " " + className + " prompt=" + promptUnits + " max_tokens=" + maxTokens
        + (prefixIndex >= 0 ? " prefix=" + prefixIndex : "") + "]";
  }
}
