package dev.tandem.engine.server;

import dev.tandem.api.ApiError;
import dev.tandem.api.CompletionRequest;
import dev.tandem.api.SamplingControls;
import dev.tandem.engine.model.GenerationConfig;
import dev.tandem.engine.sched.Engine;
import dev.tandem.engine.sched.GenerationRequest;
import dev.tandem.engine.sched.LogitControls;
import dev.tandem.engine.sched.SamplingParams;
import dev.tandem.tokenizer.TextTokenizer;
import dev.tandem.tokenizer.TokenizerWork;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.Map;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Tokenizes and checks a request's prompt (on a worker thread unless it is short), and maps it to
 * an engine request.
 */
final class PromptPreparer {
  /** A prompt ready for the engine; {@code echoText} is set when the request asked for echo. */
  record Prepared(int[] ids, String echoText) {}

  private final Vertx vertx;
  private final Engine engine;
  private final TextTokenizer tokenizer;

  PromptPreparer(Vertx vertx, Engine engine, TextTokenizer tokenizer) {
    this.vertx = vertx;
    this.engine = engine;
    this.tokenizer = tokenizer;
  }

  /**
   * A request body with the model's sampling defaults (generation_config.json) filled in where
   * the request leaves {@code temperature}, {@code top_p} or {@code top_k} out or null: the request's own value,
   * else the model's default, else the OpenAI default (1). Checked by the request parsers after.
   */
  JsonObject body(Buffer raw) {
    JsonObject body = CompletionRequest.parseObject(raw);
    GenerationConfig g = engine.generationConfig();
    if (g.temperature() != null && body.getValue("temperature") == null) {
      body.put("temperature", g.temperature());
    }
    if (g.topP() != null && body.getValue("top_p") == null) {
      body.put("top_p", g.topP());
    }
    if (g.topK() != null && body.getValue("top_k") == null) {
      body.put("top_k", g.topK());
    }
    return body;
  }

  /**
   * Tokens of the prompt, checked against vocabulary and context (400 otherwise): on a worker
   * when it has a long text to tokenize or many ids to decode for echo, else at once
   * ({@link TokenizerWork}).
   */
  Future<Prepared> prepare(CompletionRequest request, Integer checkMaxTokens) {
    boolean onLoop = request.prompt().isText()
        ? TokenizerWork.textOnLoop(request.prompt().text().length())
        : !request.echo() || TokenizerWork.idsOnLoop(request.prompt().tokenIds().length);
    return TokenizerWork.run(vertx, onLoop, () -> {
      int[] ids = request.prompt().isText() ? tokenizer.encode(request.prompt().text())
          : request.prompt().tokenIds();
      engine.checkPrompt(ids, checkMaxTokens);
      String echo = request.echo() ? tokenizer.decode(ids) : null;
      return new Prepared(ids, echo);
    });
  }

  /** Decoded text of ids, on a worker unless they are few (echo for start_generate). */
  Future<String> decode(int[] ids) {
    return TokenizerWork.run(vertx, TokenizerWork.idsOnLoop(ids.length),
        () -> tokenizer.decode(ids));
  }

  static GenerationRequest generation(String id, int[] ids, CompletionRequest request) {
    long seed = request.seed() != null ? request.seed() : ThreadLocalRandom.current().nextLong();
    SamplingParams sampling = new SamplingParams(request.temperature(), request.topP(), seed,
        request.maxTokens(), request.logprobs(), request.stop(), request.ignoreEos(),
        logitControls(request.controls()));
    return new GenerationRequest(id, ids, request.n(), sampling);
  }

  /**
   * The request's penalties, logit bias and top-k for the sampler. Structured output needs
   * grammar-constrained decoding, which this engine does not have: a clear 400, never output
   * that silently ignores the format.
   */
  static LogitControls logitControls(SamplingControls c) {
    if (c.responseFormat() != null && !c.responseFormat().isText()) {
      throw ApiError.invalid("response_format", "unsupported_parameter", "response_format \""
          + c.responseFormat().type() + "\" needs grammar-constrained decoding, which the builtin"
          + " engine does not do; use MLC engines (--engine mlc) or ask for \"text\"");
    }
    int[] ids = new int[c.logitBias().size()];
    float[] values = new float[ids.length];
    int i = 0;
    for (Map.Entry<Integer, Double> e : c.logitBias().entrySet()) {
      ids[i] = e.getKey();
      values[i++] = e.getValue().floatValue();
    }
    return new LogitControls((float) c.frequencyPenalty(), (float) c.presencePenalty(), ids,
        values, c.topK());
  }
}
