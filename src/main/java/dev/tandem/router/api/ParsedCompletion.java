package dev.tandem.router.api;

import io.vertx.core.json.JsonObject;

/**
 * A completion request whose fields passed validation; the prompt is either text (tokenized next,
 * off the event loop) or token ids.
 *
 * @param engineFields the client fields passed on to engines as they are
 */
public record ParsedCompletion(String model, String promptText, int[] promptIds, int n,
    Integer maxTokens, boolean stream, boolean includeUsage, boolean echo, Integer logprobs,
    Double temperature, Long seed, boolean penalties, JsonObject engineFields) {}
