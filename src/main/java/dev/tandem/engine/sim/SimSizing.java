package dev.tandem.engine.sim;

import dev.tandem.engine.model.KvStore;
import dev.tandem.engine.sched.EngineOptions;
import dev.tandem.engine.server.EngineOverrides;
import java.time.Duration;

/**
 * A simulated engine's limits, as the imitated GPU engine would size them: KV pages from the
 * profile's GPU memory (times {@code gpu_memory_utilization}, less weights and an activation
 * reserve), batch and prefill chunk from the profile. {@code --overrides} win as they do for the
 * builtin engine; {@code --mode local|interactive} keep MLC's small batches (4 and 1), {@code
 * server} takes the profile's batch.
 */
public final class SimSizing {

  private SimSizing() {}

  public static EngineOptions size(SimForwardModel model, StepTimeModel timing, String mode,
      EngineOverrides o, boolean prefixCache, Duration parkedTtl) {
    SimProfile.Serving serving = timing.profile().serving();
    int maxNumSequence = o.maxNumSequence() != null ? o.maxNumSequence() : switch (mode) {
      case "interactive" -> 1;
      case "local" -> 4;
      default -> serving.maxNumSequence();
    };
    int context = model.config().maxPositionEmbeddings();
    if (o.contextWindowSize() != null && o.contextWindowSize() > 0) {
      context = Math.min(context, o.contextWindowSize());
    }
    int chunk = o.prefillChunkSize() != null ? o.prefillChunkSize() : serving.prefillChunk();
    long tokens;
    if (o.maxTotalSeqLength() != null) {
      tokens = o.maxTotalSeqLength();
    } else {
      double utilization = o.gpuMemoryUtilization() != null ? o.gpuMemoryUtilization()
          : serving.gpuMemoryUtilization();
      if (!(utilization > 0 && utilization <= 1)) {
        throw new IllegalArgumentException("gpu_memory_utilization must be in (0, 1], got " + utilization);
      }
      tokens = timing.kvCapacityTokens(utilization);
    }
    // the stored rows are tiny, but one int array per layer still bounds the page count
    long pages = Math.min(tokens / KvStore.PAGE_SIZE,
        (Integer.MAX_VALUE - 64L) / KvStore.PAGE_SIZE / SimForwardModel.KV_DIM);
    if (pages < 2) {
      throw new IllegalArgumentException("profile " + timing.profile().name() + " leaves no room"
          + " for a KV cache (" + tokens + " tokens); lower the model or raise the memory");
    }
    int maxLength = (int) Math.min(context, pages * KvStore.PAGE_SIZE);
    return new EngineOptions(maxNumSequence, (int) pages, chunk, maxLength, prefixCache, parkedTtl);
  }
}
