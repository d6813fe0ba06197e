package dev.tandem.chat;

import dev.tandem.api.ApiError;
import dev.tandem.chat.jinja.Jinja2Environment;
import dev.tandem.chat.jinja.Jinja2Exception;
import dev.tandem.chat.jinja.Jinja2Template;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A model's chat template, parsed once, rendered per request as transformers'
 * {@code apply_chat_template} renders it: the special tokens, then {@code messages}, {@code tools},
 * {@code documents}, {@code add_generation_prompt} and any extra keyword arguments.
 *
 * <p>A model may have several named templates ({@code default}, {@code tool_use}, ...): as
 * transformers does, {@code tool_use} is picked when the request has tools and it exists, else
 * {@code default}. Rendering is CPU work (a template with tools takes a fraction of a millisecond to
 * a few milliseconds): call it off the event loop. Instances are immutable and thread-safe.
 * Load them with {@link ChatTemplates}.
 */
public final class ChatTemplate {
  public static final String DEFAULT = "default";
  public static final String TOOL_USE = "tool_use";
  /** One environment per process: its parsed-expression cache is shared by every template. */
  private static final Jinja2Environment ENVIRONMENT = new Jinja2Environment();

  private final Map<String, Jinja2Template> templates;
  private final Map<String, String> sources;
  private final SpecialTokens specialTokens;

  private ChatTemplate(Map<String, String> sources, SpecialTokens specialTokens) {
    if (sources.isEmpty()) {
      throw new IllegalArgumentException("no chat template given");
    }
    Map<String, Jinja2Template> compiled = new LinkedHashMap<>();
    sources.forEach((name, source) -> {
      try {
        compiled.put(name, ENVIRONMENT.compile(source));
      } catch (Jinja2Exception e) {
        throw new IllegalArgumentException("chat template '" + name + "' does not parse: " + e.getMessage(), e);
      }
    });
    this.templates = Map.copyOf(compiled);
    this.sources = Map.copyOf(sources);
    this.specialTokens = specialTokens;
  }

  /**
   * One template, used for every request.
   *
   * @throws IllegalArgumentException when it is not valid Jinja
   */
  public static ChatTemplate of(String source, SpecialTokens specialTokens) {
    return new ChatTemplate(Map.of(DEFAULT, source), specialTokens);
  }

  /**
   * Named templates, as {@code tokenizer_config.json} can hold them ({@code [{name, template}]}).
   *
   * @throws IllegalArgumentException when one is not valid Jinja, or none is given
   */
  public static ChatTemplate named(Map<String, String> sources, SpecialTokens specialTokens) {
    return new ChatTemplate(sources, specialTokens);
  }

  /** The template source a request with or without tools gets (transformers' choice). */
  public String source(boolean withTools) {
    return sources.get(pick(withTools));
  }

  public SpecialTokens specialTokens() {
    return specialTokens;
  }

  /**
   * Renders a conversation. {@code messages}, {@code tools} and {@code documents} are JSON as the
   * template should see them (see {@link ChatRequest#templateMessages()}); a null {@code tools} or
   * {@code documents} is passed as None.
   *
   * @param extra further template variables (e.g. {@code enable_thinking}); they may override the
   *     special tokens but not the four named arguments
   * @throws ApiError 400 when the template raises ({@code raise_exception}: the message is the
   *     template's) or cannot render this conversation
   */
  public String render(JsonArray messages, JsonArray tools, JsonArray documents,
      boolean addGenerationPrompt, JsonObject extra) {
    Map<String, Object> variables = new HashMap<>(specialTokens.tokens());
    if (extra != null) {
      variables.putAll(extra.getMap());
    }
    variables.put("messages", messages);
    variables.put("tools", tools);
    variables.put("documents", documents);
    variables.put("add_generation_prompt", addGenerationPrompt);
    Jinja2Template template = templates.get(pick(tools != null));
    try {
      return template.render(variables);
    } catch (Jinja2Exception e) {
      if (e.kind() == Jinja2Exception.Kind.RAISED) {
        throw ApiError.invalid("messages", "chat_template_error", e.getMessage());
      }
      throw ApiError.invalid("messages", "chat_template_error",
          "The model's chat template cannot render this conversation: " + e.getMessage());
    }
  }

  /** Renders a parsed chat request: its messages, tools and {@code chat_template_kwargs}. */
  public String render(ChatRequest request) {
    return render(request.templateMessages(), request.templateTools(), request.documents(),
        request.addGenerationPrompt(), request.chatTemplateKwargs());
  }

  private String pick(boolean withTools) {
    if (withTools && templates.containsKey(TOOL_USE)) {
      return TOOL_USE;
    }
    if (templates.containsKey(DEFAULT)) {
      return DEFAULT;
    }
    if (templates.size() == 1) {
      return templates.keySet().iterator().next();
    }
    throw ApiError.invalid("messages", "chat_template_error", "The model has chat templates "
        + templates.keySet() + " but none named 'default' to use for this request");
  }
}
