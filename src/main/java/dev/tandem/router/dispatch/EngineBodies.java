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

  private EngineBodies() {}

  static JsonObject generation(Attempt a, boolean requestTokenIds) {
    AttemptSpec spec = a.spec();
    JsonObject body = a.job().engineFields().copy();
    JsonInts prompt = new JsonInts(spec.promptIds()); // written without boxing each id
    JsonObject debug = defaultDebugConfig();
    JsonObject clientDebug = body.getJsonObject("debug_config");
    if (clientDebug != null) {
      debug.mergeIn(clientDebug);
    }
    body.put("prompt", prompt).put("n", spec.n()).put("max_tokens", spec.maxTokens())
        .put("echo", false).put("stream", true)
        .put("stream_options", new JsonObject().put("include_usage", true))
        .put("user", a.engineRequestId()).put("debug_config", debug);
    if (requestTokenIds) {
      body.put("return_token_ids", true);
    }
    return body;
  }

  static JsonObject prepRecv(JsonObject generation, int end) {
    return generation.copy().put("end", end);
  }

  static JsonObject remoteSend(JsonObject generation, int begin, int end, String kvAddrInfo,
      int recvRank) {
    return generation.copy().put("begin", begin).put("end", end).put("kv_addr_info", kvAddrInfo)
        .put("recv_rank", recvRank);
  }

  static JsonObject startGenerate(JsonObject generation, int begin) {
    return generation.copy().put("begin", begin);
  }

  static JsonObject release(String engineRequestId) {
    return new JsonObject().put("user", engineRequestId);
  }
}
