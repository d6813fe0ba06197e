package dev.tandem.router.dispatch;

import dev.tandem.api.JsonInts;
import io.vertx.core.json.JsonObject;

/**
 * Request bodies sent to engines: the client's passed-on fields plus what the router controls.
 * Engines always stream with usage (one relay path for every client; a client that leaves can be
 * cut off at once), never echo (the router does), and get the attempt's own id in {@code user}:
 * the client's {@code user} is never an engine request id, so two clients with the same
 * {@code user} cannot collide (reference §6 item 9). MicroServing bodies are full completion
 * bodies with a non-null {@code debug_config} (§4) plus their window fields.
 */
public final class EngineBodies {

  /** MLC's default DebugConfig; a null {@code debug_config} crashes MLC's MicroServing handlers. */
  static JsonObject defaultDebugConfig() {
    return new JsonObject().put("ignore_eos", false).put("pinned_system_prompt", false)
        .put("special_request", null).put("grammar_execution_mode", "jump_forward")
        .put("disagg_config", null);
  }

  /** The router's fields of a generation, in this order (never written to: EngineBody copies). */
  private static final String[] GENERATION = {"prompt", "n", "max_tokens", "echo", "stream",
      "stream_options", "user", "debug_config"};
  private static final String[] GENERATION_WITH_IDS = {"prompt", "n", "max_tokens", "echo",
      "stream", "stream_options", "user", "debug_config", "return_token_ids"};

  /** The default, and the last client config merged into it: shared by bodies, never written to. */
  private static final JsonObject DEFAULT_DEBUG = defaultDebugConfig();
  /** The default with {@code ignore_eos}, what benchmarks send (shared, never written to). */
  private static final JsonObject IGNORE_EOS_DEBUG = defaultDebugConfig().put("ignore_eos", true);
  /** {@code stream_options} of every engine body (shared, never written to). */
  private static final JsonObject INCLUDE_USAGE = new JsonObject().put("include_usage", true);
  private static volatile DebugMerge lastDebug;

  private record DebugMerge(JsonObject client, JsonObject merged) {}

  private EngineBodies() {}

  /**
   * MLC's default DebugConfig with the client's {@code debug_config} merged in; the result is
   * shared (never write to it). A router's clients send none, or the same one (a benchmark's
   * {@code ignore_eos}), so the last merge is kept rather than made per request.
   */
  static JsonObject debugConfig(JsonObject client) {
    if (client == null) {
      return DEFAULT_DEBUG;
    }
    if (client.size() == 1 && Boolean.TRUE.equals(client.getValue("ignore_eos"))) {
      return IGNORE_EOS_DEBUG;
    }
    DebugMerge last = lastDebug;
    if (last != null && last.client().equals(client)) {
      return last.merged();
    }
    JsonObject merged = defaultDebugConfig().mergeIn(client);
    lastDebug = new DebugMerge(client.copy(), merged);
    return merged;
  }

  static EngineBody generation(Attempt a, boolean requestTokenIds) {
    AttemptSpec spec = a.spec();
    JsonObject passed = a.job().engineFields();
    JsonObject debug = debugConfig(passed.getJsonObject("debug_config"));
    String[] keys = requestTokenIds ? GENERATION_WITH_IDS : GENERATION;
    Object[] values = new Object[keys.length];
    // the job's own prompt (its client bytes copied, where kept) unless this attempt continues it
    values[0] = spec.promptIds() == a.job().promptIds() ? a.job().prompt()
        : new JsonInts(spec.promptIds());
    values[1] = spec.n();
    values[2] = spec.maxTokens();
    values[3] = false;
    values[4] = true;
    values[5] = INCLUDE_USAGE;
    values[6] = a.engineRequestId();
    values[7] = debug;
    if (requestTokenIds) {
      values[8] = true;
    }
    return new EngineBody(passed, keys, values);
  }

  static EngineBody prepRecv(EngineBody generation, int end) {
    return generation.with("end", end);
  }

  static EngineBody remoteSend(EngineBody generation, int begin, int end, String kvAddrInfo,
      int recvRank) {
    return generation.with("begin", begin).with("end", end).with("kv_addr_info", kvAddrInfo)
        .with("recv_rank", recvRank);
  }

  static EngineBody startGenerate(EngineBody generation, int begin) {
    return generation.with("begin", begin);
  }

  static JsonObject release(String engineRequestId) {
    return new JsonObject().put("user", engineRequestId);
  }
}
