package dev.tandem.bench;

import java.util.Arrays;
import java.util.List;

/**
 * One request of a workload, fully decided before sending: which class it belongs to, its prompt
 * (text or token ids), how many prompt units it has and how many tokens it asks for.
 *
 * @param index 0-based position in the run (warm-up requests included)
 * @param prefixIndex which shared prefix it starts with, or -1
 * @param promptUnits tokens for id prompts, words for text prompts (shared prefix included)
 * @param system a text prompt's shared prefix as a chat's system message; null without one
 * @param turns a text prompt as a chat's messages: user, assistant, ..., user (the last the new
 *     one); null for id prompts. {@code promptText} is the system text and these joined by spaces
 */
public record PlannedRequest(long index, String className, String promptText, int[] promptIds,
    int prefixIndex, int promptUnits, int maxTokens, String system, List<String> turns) {

  /** An id prompt, or a text prompt that is one user message. */
  public PlannedRequest(long index, String className, String promptText, int[] promptIds,
      int prefixIndex, int promptUnits, int maxTokens) {
    this(index, className, promptText, promptIds, prefixIndex, promptUnits, maxTokens, null,
        promptText == null ? null : List.of(promptText));
  }

  public boolean hasIdPrompt() {
    return promptIds != null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PlannedRequest p && index == p.index && className.equals(p.className)
        && java.util.Objects.equals(promptText, p.promptText) && Arrays.equals(promptIds, p.promptIds)
        && prefixIndex == p.prefixIndex && promptUnits == p.promptUnits && maxTokens == p.maxTokens
        && java.util.Objects.equals(system, p.system) && java.util.Objects.equals(turns, p.turns);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(index, className, promptText, Arrays.hashCode(promptIds), prefixIndex,
        promptUnits, maxTokens, system, turns);
  }

  @Override
  public String toString() {
    return "PlannedRequest[" + index + " " + className + " prompt=" + promptUnits + " max_tokens=" + maxTokens
        + (prefixIndex >= 0 ? " prefix=" + prefixIndex : "") + "]";
  }
}
