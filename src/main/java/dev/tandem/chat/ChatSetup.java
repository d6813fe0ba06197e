package dev.tandem.chat;

import dev.tandem.api.ApiError;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What a server needs to answer chat completions, loaded once at start (file I/O and template
 * parsing: off the event loop): the chat template, or why there is none, and whether tool calls
 * are parsed out of answers. Router and builtin engine load it the same way
 * ({@code --chat-template FILE}, {@code --tool-call-parser hermes}).
 *
 * @param template the template, or null when chat cannot be served
 * @param missing why there is no template (the 400 a chat request gets), or null
 * @param hermesToolCalls {@code --tool-call-parser hermes}
 */
public record ChatSetup(ChatTemplate template, String missing, boolean hermesToolCalls) {

  /** The {@code --tool-call-parser} values: none (answers are text) or hermes. */
  public static final List<String> TOOL_CALL_PARSERS = List.of("none", "hermes");

  /** No chat: every chat request is a 400 saying so. */
  public static ChatSetup none() {
    return new ChatSetup(null, "this server was started without a chat template", false);
  }

  /**
   * Loads the chat template: {@code templateFile} ({@code --chat-template}) when given, with the
   * special tokens of {@code modelDir}; else the model folder's own (see {@link ChatTemplates}).
   * A model without a template, or whose template does not parse, serves no chat (its requests
   * get a 400 that says to give {@code --chat-template}); a given file that cannot be read or
   * parsed is a start-up error.
   *
   * @param modelDir the model folder, or null when the server has none (then only a file counts)
   * @param toolCallParser one of {@link #TOOL_CALL_PARSERS}; null is none
   * @throws IOException when the given file cannot be read
   * @throws IllegalArgumentException when the given file is not a valid template, or the parser
   *     is unknown
   */
  public static ChatSetup load(Path templateFile, Path modelDir, String toolCallParser)
      throws IOException {
    boolean hermes = hermes(toolCallParser);
    if (templateFile != null) {
      return new ChatSetup(ChatTemplates.fromFile(templateFile, modelDir), null, hermes);
    }
    if (modelDir == null) {
      return new ChatSetup(null, "this server has no chat template; start it with"
          + " --chat-template FILE", hermes);
    }
    Optional<ChatTemplate> own;
    try {
      own = ChatTemplates.fromModelDir(modelDir);
    } catch (IllegalArgumentException e) {
      return new ChatSetup(null, "the model's chat template cannot be used (" + e.getMessage()
          + "); start the server with --chat-template FILE", hermes);
    }
    return own.map(t -> new ChatSetup(t, null, hermes)).orElseGet(() -> new ChatSetup(null,
        "the model " + modelDir.getFileName() + " has no chat template (tokenizer_config.json,"
            + " chat_template.jinja); start the server with --chat-template FILE", hermes));
  }

  /** Checks a {@code --tool-call-parser} value: true for hermes, false for none (or null). */
  public static boolean hermes(String toolCallParser) {
    if (toolCallParser != null && !TOOL_CALL_PARSERS.contains(toolCallParser)) {
      throw new IllegalArgumentException("--tool-call-parser " + toolCallParser
          + ": unknown parser; use none or hermes");
    }
    return "hermes".equals(toolCallParser);
  }

  /** The template, or a 400 that says why this server answers no chat. */
  public ChatTemplate requireTemplate() {
    if (template == null) {
      throw ApiError.invalid("messages", "no_chat_template", missing);
    }
    return template;
  }

  /** Whether this request's answer is searched for tool calls: tools offered and the parser on. */
  public boolean parseToolCalls(ChatRequest request) {
    return hermesToolCalls && request.tools().callsAllowed();
  }
}
