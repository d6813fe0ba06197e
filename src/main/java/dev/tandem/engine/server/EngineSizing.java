package dev.tandem.engine.server;

import dev.tandem.engine.model.KvStore;
import dev.tandem.engine.kv.PagedKvCache;
import dev.tandem.engine.model.LlamaConfig;
import dev.tandem.engine.sched.EngineOptions;
import java.time.Duration;

/**
 * Derives the engine's limits from the serve mode, the overrides and the memory left after the
 * model is loaded, as {@code mlc_llm serve} does from GPU memory: {@code local} batch 4,
 * {@code interactive} batch 1, {@code server} a large batch; the KV cache takes
 * {@code gpu_memory_utilization} of the free heap unless {@code max_total_seq_length} says how
 * many tokens it holds.
 */
public final class EngineSizing {
  public static final int DEFAULT_PREFILL_CHUNK = 512;
  public static final double DEFAULT_MEMORY_UTILIZATION = 0.85;
  /** Heap kept out of the KV cache for activations, logits and request buffers. */
  static final long HEADROOM_BYTES = 96L << 20;

  private EngineSizing() {}

  /** Options for {@code mode} ("local", "interactive", "server"); IllegalArgumentException if they cannot work. */
  public static EngineOptions size(LlamaConfig model, String mode, EngineOverrides o,
      boolean prefixCache, Duration parkedTtl, long freeHeapBytes) {
    int context = model.maxPositionEmbeddings();
    if (o.contextWindowSize() != null && o.contextWindowSize() > 0) {
      context = Math.min(context, o.contextWindowSize());
    }
    int maxNumSequence = o.maxNumSequence() != null ? o.maxNumSequence()
        : switch (mode) {
          case "interactive" -> 1;
          case "server" -> 64;
          default -> 4;
        };
    if (maxNumSequence < 1) {
      throw new IllegalArgumentException("max_num_sequence must be >= 1, got " + maxNumSequence);
    }
    int prefillChunk = o.prefillChunkSize() != null ? o.prefillChunkSize()
        : Math.min(DEFAULT_PREFILL_CHUNK, context);
    if (prefillChunk < 1) {
      throw new IllegalArgumentException("prefill_chunk_size must be >= 1, got " + prefillChunk);
    }
    long bytesPerToken = PagedKvCache.bytesPerToken(model.numLayers(), model.kvDim());
    long kvTokens;
    if (o.maxTotalSeqLength() != null) {
      kvTokens = o.maxTotalSeqLength();
      if (kvTokens < KvStore.PAGE_SIZE) {
        throw new IllegalArgumentException("max_total_seq_length must be >= " + KvStore.PAGE_SIZE
            + ", got " + kvTokens);
      }
    } else {
      double utilization = o.gpuMemoryUtilization() != null ? o.gpuMemoryUtilization()
          : DEFAULT_MEMORY_UTILIZATION;
      if (utilization <= 0 || utilization > 1) {
        throw new IllegalArgumentException("gpu_memory_utilization must be in (0, 1], got " + utilization);
      }
      long budget = (long) ((freeHeapBytes - HEADROOM_BYTES) * utilization);
      kvTokens = Math.min(budget / bytesPerToken, (long) maxNumSequence * context);
      if (kvTokens < 2L * KvStore.PAGE_SIZE) {
        throw new IllegalArgumentException("not enough memory for a KV cache: " + (freeHeapBytes >> 20)
            + " MiB of heap are free after loading the model and each token needs " + bytesPerToken
            + " bytes; give the JVM more heap (-Xmx) or set --overrides max_total_seq_length");
      }
    }
    long arrayLimit = (Integer.MAX_VALUE - 64L) / model.kvDim();
    long heapLimit = Math.max(freeHeapBytes - HEADROOM_BYTES, 0) / bytesPerToken;
    if (kvTokens > heapLimit) {
      throw new IllegalArgumentException("max_total_seq_length " + kvTokens + " needs "
          + (kvTokens * bytesPerToken >> 20) + " MiB of KV cache but only "
          + (freeHeapBytes >> 20) + " MiB of heap are free; lower it or raise -Xmx");
    }
    int pages = (int) Math.min(kvTokens / KvStore.PAGE_SIZE, arrayLimit / KvStore.PAGE_SIZE);
    int maxSequenceLength = (int) Math.min(context, (long) pages * KvStore.PAGE_SIZE);
    return new EngineOptions(maxNumSequence, pages, prefillChunk, maxSequenceLength, prefixCache,
        parkedTtl);
  }
}
