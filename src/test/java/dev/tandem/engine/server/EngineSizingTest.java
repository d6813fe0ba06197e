package dev.tandem.engine.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.engine.model.LlamaConfig;
import dev.tandem.engine.sched.EngineOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class EngineSizingTest {
  // 4 layers x kvDim 64: 2 KiB of K+V per token
  private static final LlamaConfig TINY = new LlamaConfig(1024, 128, 384, 4, 4, 2, 32, 10000, 1e-5,
      4096, true, 0, 0);
  private static final long HEAP = 512L << 20;

  @Test
  void parsesPopenServerOverrides() {
    EngineOverrides o = EngineOverrides.parse("gpu_memory_utilization=0.8;spec_draft_length=0;;");
    assertEquals(0.8, o.gpuMemoryUtilization());
    assertEquals(0, o.specDraftLength());
    assertNull(o.maxNumSequence());
    EngineOverrides all = EngineOverrides.parse(
        "max_num_sequence=8;max_total_seq_length=4096;prefill_chunk_size=64;context_window_size=1024;"
            + "prefix_cache_max_num_recycling_seqs=-1;max_history_size=1");
    assertEquals(8, all.maxNumSequence());
    assertEquals(4096, all.maxTotalSeqLength());
    assertEquals(64, all.prefillChunkSize());
  }

  @Test
  void rejectsUnknownKeysAndBadValues() {
    assertThrows(IllegalArgumentException.class, () -> EngineOverrides.parse("nope=1"));
    assertThrows(IllegalArgumentException.class, () -> EngineOverrides.parse("max_num_sequence=x"));
    assertThrows(IllegalArgumentException.class, () -> EngineOverrides.parse("max_num_sequence"));
    assertThrows(IllegalArgumentException.class, () -> EngineOverrides.parse("gpu_memory_utilization=NaN"));
    assertThrows(IllegalArgumentException.class, () -> EngineOverrides.parse("prefill_mode=fast"));
  }

  @Test
  void modesSetTheBatchAndOverridesWin() {
    Duration ttl = Duration.ofSeconds(60);
    EngineOverrides none = EngineOverrides.none();
    assertEquals(4, EngineSizing.size(TINY, "local", none, true, ttl, HEAP).maxNumSequence());
    assertEquals(1, EngineSizing.size(TINY, "interactive", none, true, ttl, HEAP).maxNumSequence());
    EngineOptions o = EngineSizing.size(TINY, "server",
        EngineOverrides.parse("max_total_seq_length=1000;prefill_chunk_size=7;context_window_size=512"),
        false, ttl, HEAP);
    assertEquals(62, o.numKvPages(), "1000 tokens = 62 whole pages");
    assertEquals(7, o.prefillChunkSize());
    assertEquals(512, o.maxSequenceLength());
  }

  @Test
  void memoryBoundsTheCache() {
    Duration ttl = Duration.ofSeconds(60);
    EngineOptions local = EngineSizing.size(TINY, "local", EngineOverrides.none(), true, ttl, HEAP);
    assertEquals(4 * 4096 / 16, local.numKvPages(), "local: batch x context, memory allowing");
    EngineOptions server = EngineSizing.size(TINY, "server",
        EngineOverrides.parse("gpu_memory_utilization=0.5"), true, ttl, HEAP);
    long kvBytes = (long) server.numKvPages() * 16 * 2048;
    assertTrue(kvBytes <= (HEAP - EngineSizing.HEADROOM_BYTES) / 2, "within the utilization");
    assertThrows(IllegalArgumentException.class, () -> EngineSizing.size(TINY, "server",
        EngineOverrides.none(), true, ttl, EngineSizing.HEADROOM_BYTES + 40_000));
    assertThrows(IllegalArgumentException.class, () -> EngineSizing.size(TINY, "server",
        EngineOverrides.parse("max_total_seq_length=100000000"), true, ttl, HEAP));
  }
}
