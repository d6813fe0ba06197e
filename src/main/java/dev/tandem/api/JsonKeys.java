package dev.tandem.api;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The object keys that OpenAI requests, MLC's engine chunks and Tandem's own records carry, each
 * as one shared String whose hash is already computed. {@link JsonScanner#objectKey} returns these for
 * keys it finds here, so reading a request body into a map neither builds the key's String nor
 * hashes it again, and a later lookup by the same constant compares one reference.
 */
final class JsonKeys {

  private static final String[] NAMES = {
    // completions and chat requests
    "model", "prompt", "messages", "max_tokens", "max_completion_tokens", "stream",
    "stream_options", "include_usage", "temperature", "top_p", "top_k", "n", "stop", "seed",
    "logprobs", "top_logprobs", "echo", "suffix", "presence_penalty", "frequency_penalty",
    "logit_bias", "user", "best_of", "ignore_eos", "response_format", "type", "schema",
    "json_schema", "tools", "tool_choice", "parallel_tool_calls", "function", "name",
    "description", "parameters", "arguments", "role", "content", "text", "tool_calls",
    "tool_call_id", "refusal", "reasoning_content", "image_url", "chat_template_kwargs",
    "add_generation_prompt", "documents", "return_token_ids",
    // MLC's debug config and MicroServing
    "debug_config", "disagg_config", "kind", "kv_window_begin", "kv_window_end", "kv_addr_info",
    "dst_group_offset", "recv_rank", "grammar_execution_mode", "special_request",
    "pinned_system_prompt", "prompt_length",
    // answers, chunks and usage
    "id", "object", "created", "choices", "index", "delta", "finish_reason", "usage",
    "prompt_tokens", "completion_tokens", "total_tokens", "extra", "token_ids", "output_token_ids",
    "ttft_s", "end_to_end_latency_s", "prefill_tokens_per_s", "decode_tokens_per_s",
    "inter_token_latency_s", "num_prefill_tokens", "num_preempted", "prefix_cache_hit_tokens",
    "tokens", "token", "bytes", "logprob", "text_offset", "token_logprobs", "error", "message",
    "code", "param", "routing",
  };
  private static final int SLOTS = 512; // a power of two, well above NAMES.length
  private static final String[] STRINGS = new String[SLOTS];
  private static final byte[][] BYTES = new byte[SLOTS][];

  static {
    for (String name : NAMES) {
      byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
      int slot = hash(bytes, 0, bytes.length) & (SLOTS - 1);
      while (STRINGS[slot] != null) {
        if (STRINGS[slot].equals(name)) {
          throw new IllegalStateException("listed twice: " + name);
        }
        slot = (slot + 1) & (SLOTS - 1);
      }
      name.hashCode(); // computed once, kept in the String
      STRINGS[slot] = name;
      BYTES[slot] = bytes;
    }
  }

  private JsonKeys() {}

  /** The listed keys (for tests). */
  static String[] names() {
    return NAMES.clone();
  }

  /** The shared String for the ASCII key in {@code b[from, to)}, or null if it is not listed. */
  static String known(byte[] b, int from, int to) {
    int slot = hash(b, from, to) & (SLOTS - 1);
    while (true) {
      byte[] candidate = BYTES[slot];
      if (candidate == null) {
        return null;
      }
      if (Arrays.equals(candidate, 0, candidate.length, b, from, to)) {
        return STRINGS[slot];
      }
      slot = (slot + 1) & (SLOTS - 1);
    }
  }

  private static int hash(byte[] b, int from, int to) {
    int h = to - from;
    for (int k = from; k < to; k++) {
      h = 31 * h + b[k];
    }
    return h ^ (h >>> 9);
  }
}
