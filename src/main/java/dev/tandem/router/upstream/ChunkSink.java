package dev.tandem.router.upstream;

import java.util.List;
import java.util.function.Consumer;

/**
 * Where an {@link EngineStream}'s chunks go. Most of a stream is per-token chunks of one learned
 * shape ({@link ChunkShape}); those arrive through {@link #token} as their fields, so a sink that
 * takes them there (the router's relay) costs no chunk, list and choice objects per token. Any
 * other chunk, and every token for a sink that does not take them, arrives whole in
 * {@link #accept}.
 */
@FunctionalInterface
public interface ChunkSink extends Consumer<EngineChunk> {

  /**
   * A chunk of one choice and nothing else that counts: no logprobs, no usage, no error. By
   * default the same chunk, whole: {@code accept} sees what {@link EngineChunk#parse} reads.
   *
   * @param tokenIds the chunk's token ids, or null when it named none
   */
  default void token(int index, String text, String finishReason, int[] tokenIds) {
    accept(new EngineChunk(List.of(new EngineChunk.Choice(index, text, finishReason, tokenIds,
        null)), null, null, null));
  }
}
