package dev.tandem.bench;

import java.util.Arrays;
import java.util.List;

/**
 * One request of a workload, fully decided before sending: which class it belongs to, its prompt
 * (text or token ids), how many prompt units it has and how many tokens it asks for.
 *
 * @param index 0-based position in the run (warm-up requests included)
 * @param promptIds an id prompt; null for a text prompt
 * @param prefixIndex which shared prefix it starts with, or -1
 * @param promptUnits tokens for id prompts, words for text prompts (shared prefix included)
 * @param system a text prompt's shared prefix (a chat's system message); null without one
 * @param turns a text prompt's parts (a chat's messages): user, assistant, ..., user, the last
 *     the new one; null for an id prompt
 */
public record PlannedRequest(long index, String className, int[] promptIds, int prefixIndex,
    int promptUnits, int maxTokens, String system, List<String> turns) {

  public static PlannedRequest ofIds(long index, String className, int[] ids, int prefixIndex,
      int promptUnits, int maxTokens) {
    return new PlannedRequest(index, className, ids, prefixIndex, promptUnits, maxTokens, null,
        null);
  }

  public static PlannedRequest ofText(long index, String className, String system,
      List<String> turns, int prefixIndex, int promptUnits, int maxTokens) {
    return new PlannedRequest(index, className, null, prefixIndex, promptUnits, maxTokens, system,
        List.copyOf(turns));
  }

  public boolean hasIdPrompt() {
    return promptIds != null;
  }

  /** A text prompt as one completion prompt: the shared prefix and the turns, space-separated. */
  public String promptText() {
    if (turns == null) {
      return null;
    }
    String joined = String.join(" ", turns);
    return system == null ? joined : system + " " + joined;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PlannedRequest p && index == p.index && className.equals(p.className)
        && Arrays.equals(promptIds, p.promptIds) && prefixIndex == p.prefixIndex
        && promptUnits == p.promptUnits && maxTokens == p.maxTokens
        && java.util.Objects.equals(system, p.system) && java.util.Objects.equals(turns, p.turns);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(index, className, Arrays.hashCode(promptIds), prefixIndex,
        promptUnits, maxTokens, system, turns);
  }

  @Override
  public String toString() {
    return "PlannedRequest[" + index + " " + className + " prompt=" + promptUnits + " max_tokens=" + maxTokens
        + (prefixIndex >= 0 ? " prefix=" + prefixIndex : "") + "]";
  }
}
