package dev.tandem.bench;

import java.util.List;

/**
 * What to send: the request classes, how prompts are encoded, an optional shared prefix and the
 * seed that makes two runs send identical requests.
 *
 * @param vocabSize upper bound (exclusive) of token ids for {@link PromptKind#IDS}; ignored for text
 * @param firstTokenId lower bound (inclusive) of token ids, to skip special tokens if wanted
 * @param sharedPrefix null when every prompt is independent
 * @param multiTurn null unless requests are turns of conversations
 */
public record WorkloadSpec(List<WorkloadClass> classes, PromptKind promptKind, int vocabSize,
    int firstTokenId, SharedPrefix sharedPrefix, long seed, MultiTurn multiTurn) {

  public WorkloadSpec(List<WorkloadClass> classes, PromptKind promptKind, int vocabSize,
      int firstTokenId, SharedPrefix sharedPrefix, long seed) {
    this(classes, promptKind, vocabSize, firstTokenId, sharedPrefix, seed, null);
  }

  public WorkloadSpec {
    classes = List.copyOf(classes);
    if (classes.isEmpty()) {
      throw new IllegalArgumentException("a workload needs at least one request class");
    }
    if (classes.stream().map(WorkloadClass::name).distinct().count() != classes.size()) {
      throw new IllegalArgumentException("mix class names must be distinct");
    }
    if (promptKind == PromptKind.IDS && (vocabSize <= firstTokenId || firstTokenId < 0)) {
      throw new IllegalArgumentException("token id prompts need 0 <= first token id < vocab size, got "
          + firstTokenId + " and " + vocabSize + " (give --vocab-size or --model-dir)");
    }
  }

  public boolean isMix() {
    return classes.size() > 1;
  }
}
