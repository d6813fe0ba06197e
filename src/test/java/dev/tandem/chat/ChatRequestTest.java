package dev.tandem.chat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ApiError;
import dev.tandem.api.CompletionRequest;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ChatRequestTest {
  private static final String USER = "{\"role\":\"user\",\"content\":\"hi\"}";

  private static ChatRequest parse(String body) {
    return ChatRequest.parse(new JsonObject(body));
  }

  private static ApiError refused(String body) {
    ApiError e = assertThrows(ApiError.class, () -> ChatRequest.parse(Buffer.buffer(body)));
    assertEquals(400, e.status());
    assertEquals("invalid_request_error", e.type());
    return e;
  }

  /** A request with {@code fields} added to one user message. */
  private static String with(String fields) {
    return "{\"messages\":[" + USER + "]" + (fields.isEmpty() ? "" : "," + fields) + "}";
  }

  @Test
  void parsesEveryField() {
    ChatRequest r = parse("""
        {"model":"m","messages":[
          {"role":"system","content":"sys"},
          {"role":"developer","content":[{"type":"text","text":"dev"}]},
          {"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"name":"ann"},
          {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
             "function":{"name":"f","arguments":"{\\"x\\": 1}"}}]},
          {"role":"tool","tool_call_id":"call_1","content":"42"},
          {"role":"assistant","content":"done","reasoning_content":"why"}],
         "max_tokens":8,"max_completion_tokens":16,"temperature":0,"top_p":0.5,"seed":7,"stop":["x"],
         "n":2,"logprobs":true,"top_logprobs":3,"user":"req-1","stream":true,
         "stream_options":{"include_usage":true},"frequency_penalty":0,"presence_penalty":null,
         "logit_bias":{},"top_k":5,"response_format":{"type":"text"},
         "tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"}}}],
         "tool_choice":"auto","parallel_tool_calls":false,"add_generation_prompt":false,
         "documents":[{"title":"t","text":"x"}],"chat_template_kwargs":{"enable_thinking":false},
         "unknown":1}""");
    assertEquals("m", r.model());
    assertEquals(6, r.messages().size());
    assertEquals("a\nb", r.messages().get(2).content());
    assertEquals("ann", r.messages().get(2).name());
    assertNull(r.messages().get(3).content());
    assertEquals(List.of(new ChatMessage.ToolCall("call_1", "f", "{\"x\": 1}")), r.messages().get(3).toolCalls());
    assertEquals("call_1", r.messages().get(4).toolCallId());
    assertEquals("why", r.messages().get(5).reasoningContent());
    assertEquals(16, r.sampling().maxTokens(), "max_completion_tokens wins over max_tokens");
    assertEquals(0.0, r.sampling().temperature());
    assertEquals(0.5, r.sampling().topP());
    assertEquals(7L, r.sampling().seed());
    assertEquals(List.of("x"), r.sampling().stop());
    assertEquals(2, r.sampling().n());
    assertTrue(r.logprobs());
    assertEquals(3, r.topLogprobs());
    assertEquals("req-1", r.sampling().user());
    assertTrue(r.stream() && r.sampling().includeUsage());
    assertTrue(r.tools().callsAllowed());
    assertEquals(List.of("f"), r.tools().names());
    assertFalse(r.addGenerationPrompt());
    assertEquals(1, r.documents().size());
    assertEquals(false, r.chatTemplateKwargs().getBoolean("enable_thinking"));
  }

  @Test
  void defaults() {
    ChatRequest r = parse(with("\"max_tokens\":null"));
    assertNull(r.sampling().maxTokens());
    assertEquals(1.0, r.sampling().temperature());
    assertEquals(1, r.sampling().n());
    assertFalse(r.logprobs());
    assertEquals(0, r.topLogprobs());
    assertFalse(r.stream());
    assertTrue(r.addGenerationPrompt());
    assertNull(r.templateTools());
    assertFalse(r.tools().callsAllowed());
    assertEquals(8, parse(with("\"max_tokens\":8")).sampling().maxTokens());
  }

  @Test
  void becomesTheCompletionOfItsRenderedPrompt() {
    ChatRequest r = parse(with("\"max_completion_tokens\":5,\"temperature\":0.3,\"seed\":1,\"stop\":\"s\","
        + "\"n\":2,\"logprobs\":true,\"top_logprobs\":4,\"user\":\"u\",\"stream\":true,"
        + "\"stream_options\":{\"include_usage\":true},\"debug_config\":{\"ignore_eos\":true}"));
    CompletionRequest c = r.toCompletion(new int[] {5, 6, 7});
    assertArrayEquals(new int[] {5, 6, 7}, c.prompt().tokenIds());
    assertEquals(5, c.maxTokens());
    assertEquals(0.3, c.temperature());
    assertEquals(1L, c.seed());
    assertEquals(List.of("s"), c.stop());
    assertEquals(2, c.n());
    assertEquals(4, c.logprobs());
    assertEquals("u", c.user());
    assertTrue(c.stream() && c.includeUsage() && c.ignoreEos());
    assertFalse(c.echo());
    assertNull(c.suffix());
    assertEquals(0, parse(with("\"logprobs\":true")).toCompletion("p").logprobs());
    assertNull(parse(with("")).toCompletion("p").logprobs());
    assertEquals("p", parse(with("")).toCompletion("p").prompt().text());
  }

  @Test
  void templateMessagesDecodeToolArgumentsAndKeepNullContent() {
    ChatRequest r = parse("""
        {"messages":[{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[
          {"id":"c","type":"function","function":{"name":"f","arguments":"{\\"city\\": \\"Zürich\\"}"}},
          {"type":"function","function":{"name":"g","arguments":"not json"}}]}]}""");
    JsonObject assistant = r.templateMessages().getJsonObject(1);
    assertTrue(assistant.containsKey("content"));
    assertNull(assistant.getValue("content"));
    JsonObject first = assistant.getJsonArray("tool_calls").getJsonObject(0);
    assertEquals("Zürich", first.getJsonObject("function").getJsonObject("arguments").getString("city"));
    assertEquals("c", first.getString("id"));
    assertEquals("not json", assistant.getJsonArray("tool_calls").getJsonObject(1)
        .getJsonObject("function").getString("arguments"));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', textBlock = """
      {}                                                                  | messages
      {"messages":"hi"}                                                   | messages
      {"messages":[]}                                                     | messages
      {"messages":[5]}                                                    | messages[0]
      {"messages":[{"content":"x"}]}                                      | messages[0].role
      {"messages":[{"role":"robot","content":"x"}]}                       | messages[0].role
      {"messages":[{"role":5,"content":"x"}]}                             | messages[0].role
      {"messages":[{"role":"user"}]}                                      | messages[0].content
      {"messages":[{"role":"user","content":null}]}                       | messages[0].content
      {"messages":[{"role":"user","content":5}]}                          | messages[0].content
      {"messages":[{"role":"user","content":{"text":"x"}}]}               | messages[0].content
      {"messages":[{"role":"user","content":[]}]}                         | messages[0].content
      {"messages":[{"role":"user","content":["x"]}]}                      | messages[0].content[0]
      {"messages":[{"role":"user","content":[{"type":"video"}]}]}         | messages[0].content[0].type
      {"messages":[{"role":"user","content":[{"type":"text","text":1}]}]} | messages[0].content[0].text
      {"messages":[{"role":"assistant"}]}                                 | messages[0].content
      {"messages":[{"role":"tool","content":"x"}]}                        | messages[0].tool_call_id
      {"messages":[{"role":"user","content":"x","tool_calls":[]}]}        | messages[0].tool_calls
      {"messages":[{"role":"assistant","content":null,"tool_calls":{}}]}  | messages[0].tool_calls
      {"messages":[{"role":"assistant","tool_calls":[{"function":{}}]}]}  | messages[0].tool_calls[0].function.name
      {"messages":[{"role":"user","content":"x","name":3}]}               | messages[0].name
      """)
  void badMessagesAre400sNamingTheField(String body, String param) {
    assertEquals(param, refused(body).param());
  }

  @Test
  void imagesAreRefusedClearly() {
    ApiError e = refused(
        "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}}]}]}");
    assertEquals("messages[0].content[0].type", e.param());
    assertEquals("unsupported_content", e.code());
    assertTrue(e.getMessage().contains("image_url"), e.getMessage());
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', textBlock = """
      "temperature":-1                           | temperature
      "temperature":"hot"                        | temperature
      "top_p":1.5                                | top_p
      "top_p":0                                  | top_p
      "n":0                                      | n
      "seed":1.5                                 | seed
      "max_tokens":-1                            | max_tokens
      "max_completion_tokens":-1                 | max_completion_tokens
      "max_completion_tokens":"5"                | max_completion_tokens
      "stop":[1]                                 | stop
      "logprobs":3                               | logprobs
      "top_logprobs":21                          | top_logprobs
      "top_logprobs":-1                          | top_logprobs
      "top_logprobs":2                           | top_logprobs
      "frequency_penalty":3                      | frequency_penalty
      "presence_penalty":3                       | presence_penalty
      "logit_bias":{"5":500}                     | logit_bias
      "logit_bias":{"x":1}                       | logit_bias
      "top_k":-5                                 | top_k
      "response_format":{"type":"xml"}           | response_format
      "response_format":{"type":"json_schema"}   | response_format
      "stream_options":{"include_usage":true}    | stream_options
      "stream":"yes"                             | stream
      "user":""                                  | user
      "tools":{}                                 | tools
      "tools":[{"type":"code"}]                  | tools[0].type
      "tools":[{"type":"function","function":{"name":"a b"}}] | tools[0].function.name
      "tools":[{"type":"function","function":{"name":"f","parameters":"x"}}] | tools[0].function.parameters
      "tool_choice":"auto"                       | tool_choice
      "tool_choice":"sometimes"                  | tool_choice
      "documents":"d"                            | documents
      "chat_template_kwargs":[]                  | chat_template_kwargs
      """)
  void badGenerationFieldsAre400sNamingTheField(String field, String param) {
    assertEquals(param, refused(with(field)).param());
  }

  /** Penalties, logit bias, top-k and JSON output are the completions' controls, parsed alike. */
  @Test
  void samplingControlsAreAcceptedAsForCompletions() {
    ChatRequest r = parse(with("\"frequency_penalty\":0.5,\"presence_penalty\":-1,"
        + "\"logit_bias\":{\"5\":1},\"top_k\":20,\"response_format\":{\"type\":\"json_object\"}"));
    var controls = r.sampling().controls();
    assertEquals(0.5, controls.frequencyPenalty());
    assertEquals(-1.0, controls.presencePenalty());
    assertEquals(java.util.Map.of(5, 1.0), controls.logitBias());
    assertEquals(20, controls.topK());
    assertEquals("json_object", controls.responseFormat().type());
    assertEquals(controls, r.toCompletion(new int[] {1, 2}).controls(), "they reach the engine");
  }

  @Test
  void forcedToolChoiceIsRefusedAsUnsupported() {
    String tools = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]";
    assertEquals("unsupported_tool_choice", refused(with(tools + ",\"tool_choice\":\"required\"")).code());
    assertEquals("unsupported_tool_choice", refused(with(tools
        + ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"f\"}}")).code());
    assertFalse(parse(with(tools + ",\"tool_choice\":\"none\"")).tools().callsAllowed());
    assertNull(refused("{not json").param());
    assertEquals(400, refused("[1]").status());
  }

  @Test
  void newChatIdsAreChatcmplAnd32Hex() {
    assertTrue(ChatRequest.newChatId().matches("chatcmpl-[0-9a-f]{32}"));
  }

  @Test
  void textCharsCountWhatTheTemplateWritesOfTheRequest() {
    ChatRequest r = parse("""
        {"messages": [{"role": "system", "content": "abc"},
          {"role": "user", "content": [{"type": "text", "text": "de"}, {"type": "text", "text": "f"}],
           "name": "gh"},
          {"role": "assistant", "content": null, "reasoning_content": "ij",
           "tool_calls": [{"id": "k", "type": "function",
                           "function": {"name": "lm", "arguments": "{}"}}]},
          {"role": "tool", "tool_call_id": "no", "content": "p"}]}""");
    // abc, de\nf, gh; ij, k, lm, {}; no, p; and each message's markup
    assertEquals(3 + 4 + 2 + 2 + 1 + 2 + 2 + 2 + 1 + 4 * ChatRequest.MESSAGE_MARKUP_CHARS,
        r.textChars());
    assertEquals(2 + ChatRequest.MESSAGE_MARKUP_CHARS + "{\"enable_thinking\":false}".length(),
        parse(with("\"chat_template_kwargs\": {\"enable_thinking\": false}")).textChars());
    assertEquals(Integer.MAX_VALUE, parse(with(
        "\"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"f\"}}]")).textChars());
    assertEquals(Integer.MAX_VALUE, parse(with("\"documents\": [{\"text\": \"d\"}]")).textChars());
  }
}
