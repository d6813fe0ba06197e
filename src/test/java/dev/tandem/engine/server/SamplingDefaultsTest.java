package dev.tandem.engine.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.api.CompletionRequest;
import dev.tandem.chat.ChatRequest;
import dev.tandem.engine.model.GenerationConfig;
import dev.tandem.engine.sched.ByteTokenizer;
import dev.tandem.engine.sched.ChainedHashModel;
import dev.tandem.engine.sched.Engine;
import dev.tandem.engine.sched.EngineOptions;
import io.vertx.core.buffer.Buffer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Precedence of sampling values: the request's own, else generation_config.json's, else the
 * OpenAI default (1), for completions, MicroServing bodies and chats alike.
 */
class SamplingDefaultsTest {

  private static PromptPreparer preparer(GenerationConfig g) {
    Engine engine = new Engine(new ChainedHashModel(64), new ByteTokenizer(),
        new EngineOptions(1, 4, 16, 64, false, Duration.ofSeconds(1)), g);
    return new PromptPreparer(null, engine, new ByteTokenizer());
  }

  private static CompletionRequest completion(PromptPreparer p, String body) {
    return CompletionRequest.parse(p.body(Buffer.buffer(body)));
  }

  @Test
  void theModelsDefaultsFillWhatTheRequestLeavesOut() {
    PromptPreparer p = preparer(new GenerationConfig(List.of(), 0.6, 0.95, 20));
    CompletionRequest none = completion(p, "{\"prompt\":[1]}");
    assertEquals(0.6, none.temperature());
    assertEquals(0.95, none.topP());
    CompletionRequest nulls = completion(p, "{\"prompt\":[1],\"temperature\":null,\"top_p\":null}");
    assertEquals(0.6, nulls.temperature());
    assertEquals(0.95, nulls.topP());
    CompletionRequest own = completion(p, "{\"prompt\":[1],\"temperature\":1.0,\"top_p\":0.5}");
    assertEquals(1.0, own.temperature());
    assertEquals(0.5, own.topP());
    CompletionRequest greedy = completion(p, "{\"prompt\":[1],\"temperature\":0}");
    assertEquals(0.0, greedy.temperature());
    assertEquals(0.95, greedy.topP());
    ChatRequest chat = ChatRequest.parse(p.body(Buffer.buffer(
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"top_p\":0.7}")));
    assertEquals(0.6, chat.sampling().temperature());
    assertEquals(0.7, chat.sampling().topP());
  }

  @Test
  void withoutDefaultsTheOpenAiDefaultsApply() {
    PromptPreparer p = preparer(GenerationConfig.NONE);
    CompletionRequest none = completion(p, "{\"prompt\":[1]}");
    assertEquals(1.0, none.temperature());
    assertEquals(1.0, none.topP());
    PromptPreparer onlyTemperature = preparer(new GenerationConfig(List.of(), 0.7, null, null));
    assertEquals(1.0, completion(onlyTemperature, "{\"prompt\":[1]}").topP());
  }
}
