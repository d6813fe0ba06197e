package dev.tandem.engine.sim;

import dev.tandem.engine.model.ForwardChunk;
import java.util.List;

/**
 * How long one batched forward step takes on the profile's accelerator: a roofline. The step is
 * compute-bound (its FLOPs over the reachable peak) or memory-bound (the bytes it reads over the
 * reachable bandwidth), whichever is slower, plus a fixed per-step overhead:
 *
 * <ul>
 *   <li>FLOPs: {@code 2 * block params} per token, {@code 2 * vocab * hidden} per token that
 *       needs logits, and attention: {@code 4 * layers * heads * headDim} per (query, key) pair,
 *       each new token at position {@code p} attending to {@code p + 1} keys;
 *   <li>bytes: every weight once per step, plus each sequence's KV read over its whole context
 *       and written for its new tokens.
 * </ul>
 *
 * Prefill chunks are compute-bound, batches of decode tokens memory-bound; the crossover (a few
 * hundred tokens per step on an H100) falls out of the profile.
 */
public final class StepTimeModel {

  private final SimProfile p;
  private final double flopsPerSecond;
  private final double bytesPerSecond;
  private final double weightBytes;
  private final double kvBytesPerToken;
  private final double attnFlopsPerPair;
  private final long overheadNanos;

  public StepTimeModel(SimProfile profile) {
    this.p = profile;
    int tp = profile.gpu().count();
    flopsPerSecond = profile.gpu().peakTflops() * 1e12 * tp * profile.efficiency().compute();
    bytesPerSecond = profile.gpu().hbmGbPerS() * 1e9 * tp * profile.efficiency().bandwidth();
    SimProfile.Model m = profile.model();
    weightBytes = m.totalParams() * m.weightBytes();
    kvBytesPerToken = m.kvBytesPerToken();
    attnFlopsPerPair = 4.0 * m.layers() * m.heads() * m.headDim();
    double overheadMs = profile.efficiency().stepOverheadMs()
        + (tp > 1 ? profile.efficiency().tpSyncMs() : 0);
    overheadNanos = Math.round(overheadMs * 1e6);
  }

  public SimProfile profile() {
    return p;
  }

  /** Nanoseconds the accelerator would spend on this step. */
  public long stepNanos(List<ForwardChunk> chunks) {
    long tokens = 0;
    long logits = 0;
    double pairs = 0;
    double kvTokens = 0;
    for (ForwardChunk c : chunks) {
      long n = c.tokens().length;
      long s = c.startPos();
      tokens += n;
      logits += c.wantLogits() ? 1 : 0;
      pairs += n * (double) s + n * (n + 1) / 2.0;
      kvTokens += s + n;
    }
    return stepNanos(tokens, logits, pairs, kvTokens);
  }

  /**
   * @param pairs (query, key) pairs the step's attention computes
   * @param kvTokens KV rows the step reads or writes
   */
  long stepNanos(long tokens, long logits, double pairs, double kvTokens) {
    if (tokens == 0) {
      return 0;
    }
    SimProfile.Model m = p.model();
    double flops = 2.0 * m.blockParams() * tokens + 2.0 * m.embeddingParams() * logits
        + attnFlopsPerPair * pairs;
    double bytes = weightBytes + kvBytesPerToken * kvTokens;
    double seconds = Math.max(flops / flopsPerSecond, bytes / bytesPerSecond);
    return Math.round(seconds * 1e9) + overheadNanos;
  }

  /** Time to move the KV of {@code tokens} positions to another engine over the profile's link. */
  public long transferNanos(long tokens) {
    return Math.round(tokens * kvBytesPerToken / (p.gpu().kvLinkGbPerS() * 1e9) * 1e9);
  }

  /**
   * KV tokens the engine holds: the memory of its GPUs times {@code utilization}, less the weights
   * and an activation reserve of 5% of memory (what vLLM/MLC keep out of the cache).
   */
  public long kvCapacityTokens(double utilization) {
    double perGpu = p.gpu().memoryGib() * (1L << 30);
    double free = perGpu * utilization - p.weightBytesPerGpu() - 0.05 * perGpu;
    if (free <= 0) {
      return 0;
    }
    return (long) (free * p.gpu().count() / kvBytesPerToken);
  }
}
