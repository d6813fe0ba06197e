package dev.tandem.chat;

import dev.tandem.api.ApiError;
import dev.tandem.api.CompletionRequest;
import dev.tandem.api.JsonFields;
import dev.tandem.api.Prompt;
import dev.tandem.api.SamplingFields;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A parsed and validated {@code POST /v1/chat/completions} body. Everything that does not need the
 * model is checked here, so a router can refuse a bad chat before it reaches an engine; the
 * generation fields are the completions' ({@link SamplingFields}), so both endpoints accept and
 * refuse the same values. Unknown fields are ignored, as OpenAI-compatible servers do.
 *
 * <p>Token limit: {@code max_completion_tokens} (OpenAI's current name) wins over
 * {@code max_tokens} (deprecated) when both are given. Logprobs: {@code logprobs} is a boolean and
 * {@code top_logprobs} (0..20) asks for alternatives and needs {@code logprobs: true}.
 *
 * @param logprobs whether to return token logprobs
 * @param topLogprobs alternatives per token (0 when not asked)
 * @param addGenerationPrompt vLLM's {@code add_generation_prompt} (default true)
 * @param documents vLLM's {@code documents} for retrieval templates, or null
 * @param chatTemplateKwargs vLLM/SGLang's {@code chat_template_kwargs} (e.g. {@code enable_thinking}), or null
 */
public record ChatRequest(String model, List<ChatMessage> messages, SamplingFields sampling,
    boolean logprobs, int topLogprobs, ChatTools tools, boolean addGenerationPrompt,
    JsonArray documents, JsonObject chatTemplateKwargs) {

  public static final int MAX_TOP_LOGPROBS = 20;

  public ChatRequest {
    messages = List.copyOf(messages);
  }

  /** Parses a raw body; malformed JSON or a non-object is a 400. */
  public static ChatRequest parse(Buffer body) {
    return parse(CompletionRequest.parseObject(body));
  }

  public static ChatRequest parse(JsonObject body) {
    String model = JsonFields.optString(body, "model");
    List<ChatMessage> messages = messages(body.getValue("messages"));
    SamplingFields sampling = SamplingFields.parse(body);
    Integer maxCompletionTokens = SamplingFields.maxTokens(body, "max_completion_tokens");
    if (maxCompletionTokens != null) {
      sampling = new SamplingFields(maxCompletionTokens, sampling.temperature(), sampling.topP(),
          sampling.seed(), sampling.stop(), sampling.n(), sampling.stream(), sampling.includeUsage(),
          sampling.user(), sampling.ignoreEos(), sampling.debugConfig(), sampling.controls());
    }
    if (!sampling.stream() && body.getValue("stream_options") != null) {
      throw ApiError.invalid("stream_options", "\"stream_options\" is only allowed when \"stream\" is true");
    }
    boolean logprobs = Boolean.TRUE.equals(JsonFields.optBoolean(body, "logprobs"));
    Integer top = JsonFields.optInt(body, "top_logprobs");
    if (top != null && (top < 0 || top > MAX_TOP_LOGPROBS)) {
      throw ApiError.invalid("top_logprobs",
          "\"top_logprobs\" must be between 0 and " + MAX_TOP_LOGPROBS + ", got " + top);
    }
    if (top != null && top > 0 && !logprobs) {
      throw ApiError.invalid("top_logprobs", "\"top_logprobs\" needs \"logprobs\": true");
    }
    ChatTools tools = ChatTools.parse(body);
    Boolean addGenerationPrompt = JsonFields.optBoolean(body, "add_generation_prompt");
    JsonArray documents = documents(body.getValue("documents"));
    JsonObject kwargs = JsonFields.optObject(body, "chat_template_kwargs");
    return new ChatRequest(model, messages, sampling, logprobs, top == null ? 0 : top, tools,
        addGenerationPrompt == null || addGenerationPrompt, documents, kwargs);
  }

  private static List<ChatMessage> messages(Object value) {
    if (value == null) {
      throw ApiError.invalid("messages", "\"messages\" is required: send at least one message");
    }
    if (!(value instanceof JsonArray array)) {
      throw JsonFields.typeError("messages", "an array of messages", value);
    }
    if (array.isEmpty()) {
      throw ApiError.invalid("messages", "\"messages\" is empty: send at least one message");
    }
    List<ChatMessage> messages = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      messages.add(ChatMessage.parse(array.getValue(i), i));
    }
    return messages;
  }

  private static JsonArray documents(Object value) {
    if (value == null) {
      return null;
    }
    if (!(value instanceof JsonArray array) || !array.stream().allMatch(d -> d instanceof JsonObject)) {
      throw JsonFields.typeError("documents", "an array of objects", value);
    }
    return array;
  }

  /**
   * The chars a template writes around each message (its role and markers): ChatML's are 22,
   * Llama 3's 46.
   */
  static final int MESSAGE_MARKUP_CHARS = 32;

  /**
   * About how many chars its template renders of the request: the messages' own text and the
   * template arguments', and {@link #MESSAGE_MARKUP_CHARS} a message (a thousand one-char messages
   * are a long prompt). Tools and documents are not counted: a request with either counts as
   * {@link Integer#MAX_VALUE} (their schemas and the template's instructions for them are long).
   */
  public int textChars() {
    if (tools.tools() != null || documents != null) {
      return Integer.MAX_VALUE;
    }
    long chars = chatTemplateKwargs == null ? 0 : chatTemplateKwargs.encode().length();
    for (ChatMessage m : messages) {
      chars += MESSAGE_MARKUP_CHARS + m.textChars();
    }
    return (int) Math.min(chars, Integer.MAX_VALUE);
  }

  /** The messages as the chat template sees them ({@link ChatMessage#toTemplateJson()}). */
  public JsonArray templateMessages() {
    JsonArray array = new JsonArray();
    messages.forEach(m -> array.add(m.toTemplateJson()));
    return array;
  }

  /** The tools the template sees: None when the request has none. */
  public JsonArray templateTools() {
    return tools.tools();
  }

  public boolean stream() {
    return sampling.stream();
  }

  /**
   * The completion that generates this chat's answer from its rendered and tokenized prompt:
   * same token limit, sampling, stops, {@code n}, streaming, usage and request id; chat logprobs
   * become completion logprobs with {@code top_logprobs} alternatives (0 = the sampled token's
   * logprob only). Tokenize the rendered prompt without adding special tokens: the template
   * already wrote them (transformers tokenizes with {@code add_special_tokens=False}).
   */
  public CompletionRequest toCompletion(int[] promptTokenIds) {
    return CompletionRequest.of(model, Prompt.ofTokens(promptTokenIds), sampling,
        logprobs ? topLogprobs : null, false, null);
  }

  /** As {@link #toCompletion(int[])}, for a server that tokenizes the rendered prompt itself. */
  public CompletionRequest toCompletion(String renderedPrompt) {
    return CompletionRequest.of(model, Prompt.ofText(renderedPrompt), sampling,
        logprobs ? topLogprobs : null, false, null);
  }

  /** A fresh {@code chatcmpl-<32 lowercase hex>} id. */
  public static String newChatId() {
    return "chatcmpl-" + java.util.UUID.randomUUID().toString().replace("-", "");
  }
}
