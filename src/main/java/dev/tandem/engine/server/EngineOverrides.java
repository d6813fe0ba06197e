package dev.tandem.engine.server;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code mlc_llm serve --overrides "k=v;k=v"}: MLC's {@code EngineConfigOverride} keys with their
 * types. Empty segments are ignored; an unknown key or a malformed value is an error (MLC: argparse,
 * exit 2). Null fields were not given.
 */
public record EngineOverrides(Integer maxNumSequence, Integer maxTotalSeqLength,
    Integer prefillChunkSize, Integer maxHistorySize, Double gpuMemoryUtilization,
    Integer specDraftLength, Integer specTreeWidth, String prefixCacheMode,
    Integer prefixCacheMaxNumRecyclingSeqs, String prefillMode, Integer contextWindowSize,
    Integer slidingWindowSize, Integer attentionSinkSize, Integer tensorParallelShards,
    Integer pipelineParallelStages, String opt) {

  static final List<String> KEYS = List.of("max_num_sequence", "max_total_seq_length",
      "prefill_chunk_size", "max_history_size", "gpu_memory_utilization", "spec_draft_length",
      "spec_tree_width", "prefix_cache_mode", "prefix_cache_max_num_recycling_seqs",
      "prefill_mode", "context_window_size", "sliding_window_size", "attention_sink_size",
      "tensor_parallel_shards", "pipeline_parallel_stages", "opt");

  public static EngineOverrides none() {
    return parse("");
  }

  /** Parses the overrides string; IllegalArgumentException with a message naming the bad part. */
  public static EngineOverrides parse(String text) {
    Map<String, String> values = new LinkedHashMap<>();
    if (text != null) {
      for (String segment : text.split(";")) {
        String part = segment.trim();
        if (part.isEmpty()) {
          continue;
        }
        int eq = part.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException("--overrides segment \"" + part
              + "\" is not key=value");
        }
        String key = part.substring(0, eq).trim();
        if (!KEYS.contains(key)) {
          throw new IllegalArgumentException("--overrides key \"" + key + "\" is unknown; known keys: "
              + String.join(", ", KEYS));
        }
        values.put(key, part.substring(eq + 1).trim());
      }
    }
    return new EngineOverrides(integer(values, "max_num_sequence"),
        integer(values, "max_total_seq_length"), integer(values, "prefill_chunk_size"),
        integer(values, "max_history_size"), decimal(values, "gpu_memory_utilization"),
        integer(values, "spec_draft_length"), integer(values, "spec_tree_width"),
        choice(values, "prefix_cache_mode", "disable", "radix"),
        integer(values, "prefix_cache_max_num_recycling_seqs"),
        choice(values, "prefill_mode", "hybrid", "chunked"), integer(values, "context_window_size"),
        integer(values, "sliding_window_size"), integer(values, "attention_sink_size"),
        integer(values, "tensor_parallel_shards"), integer(values, "pipeline_parallel_stages"),
        values.get("opt"));
  }

  private static Integer integer(Map<String, String> values, String key) {
    String v = values.get(key);
    if (v == null) {
      return null;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--overrides " + key + "=" + v + ": not an integer");
    }
  }

  private static Double decimal(Map<String, String> values, String key) {
    String v = values.get(key);
    if (v == null) {
      return null;
    }
    try {
      double d = Double.parseDouble(v);
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new NumberFormatException();
      }
      return d;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--overrides " + key + "=" + v + ": not a number");
    }
  }

  private static String choice(Map<String, String> values, String key, String... allowed) {
    String v = values.get(key);
    if (v != null && !List.of(allowed).contains(v)) {
      throw new IllegalArgumentException("--overrides " + key + "=" + v + ": must be one of "
          + String.join(", ", allowed));
    }
    return v;
  }
}
