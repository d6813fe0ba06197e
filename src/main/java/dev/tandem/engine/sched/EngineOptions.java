package dev.tandem.engine.sched;

import java.time.Duration;

/**
 * Engine limits, validated once by whoever reads the command line.
 *
 * @param maxNumSequence most sequences decoding at once
 * @param numKvPages KV cache capacity in 16-token pages
 * @param prefillChunkSize most prompt tokens computed per step (decode tokens come on top)
 * @param maxSequenceLength most tokens (prompt + output) of one sequence
 * @param prefixCache radix prefix cache on
 * @param parkedTtl how long a prep_recv reservation waits for start_generate before it is freed
 */
public record EngineOptions(int maxNumSequence, int numKvPages, int prefillChunkSize,
    int maxSequenceLength, boolean prefixCache, Duration parkedTtl) {

  public static final Duration DEFAULT_PARKED_TTL = Duration.ofSeconds(60);

  public EngineOptions {
    if (maxNumSequence < 1) {
      throw new IllegalArgumentException("max_num_sequence must be >= 1, got " + maxNumSequence);
    }
    if (numKvPages < 1) {
      throw new IllegalArgumentException("the KV cache needs at least one page, got " + numKvPages);
    }
    if (prefillChunkSize < 1) {
      throw new IllegalArgumentException("prefill_chunk_size must be >= 1, got " + prefillChunkSize);
    }
    if (maxSequenceLength < 2) {
      throw new IllegalArgumentException("the context window must hold at least 2 tokens, got "
          + maxSequenceLength);
    }
    if (parkedTtl == null || parkedTtl.isNegative() || parkedTtl.isZero()) {
      throw new IllegalArgumentException("parked request TTL must be positive, got " + parkedTtl);
    }
  }
}
