package dev.tandem.chat;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds a model's chat template where transformers looks for it (file I/O: call off the event loop).
 *
 * <ol>
 *   <li>{@code chat_template.jinja} beside the tokenizer (newer transformers save it there);</li>
 *   <li>else {@code chat_template} in {@code tokenizer_config.json}: a string, or a list of
 *       {@code {name, template}} objects ({@code default}, {@code tool_use}, ...);</li>
 *   <li>else {@code chat_template} in {@code chat_template.json} (processor configs);</li>
 *   <li>plus named templates in {@code additional_chat_templates/NAME.jinja}.</li>
 * </ol>
 * Special tokens always come from {@code tokenizer_config.json}.
 */
public final class ChatTemplates {
  static final String TOKENIZER_CONFIG = "tokenizer_config.json";
  static final String TEMPLATE_FILE = "chat_template.jinja";
  static final String TEMPLATE_JSON = "chat_template.json";
  static final String ADDITIONAL = "additional_chat_templates";

  private ChatTemplates() {}

  /**
   * The model folder's chat template, or empty when it has none.
   *
   * @throws IOException when a file cannot be read
   * @throws IllegalArgumentException when a template or config is malformed
   */
  public static Optional<ChatTemplate> fromModelDir(Path modelDir) throws IOException {
    JsonObject config = readJson(modelDir.resolve(TOKENIZER_CONFIG));
    Map<String, String> sources = new LinkedHashMap<>();
    Path file = modelDir.resolve(TEMPLATE_FILE);
    if (Files.isRegularFile(file)) {
      sources.put(ChatTemplate.DEFAULT, Files.readString(file, StandardCharsets.UTF_8));
    } else if (config.containsKey("chat_template")) {
      sources.putAll(templatesOf(config.getValue("chat_template"), modelDir.resolve(TOKENIZER_CONFIG)));
    } else {
      JsonObject json = readJson(modelDir.resolve(TEMPLATE_JSON));
      if (json.containsKey("chat_template")) {
        sources.putAll(templatesOf(json.getValue("chat_template"), modelDir.resolve(TEMPLATE_JSON)));
      }
    }
    Path additional = modelDir.resolve(ADDITIONAL);
    if (Files.isDirectory(additional)) {
      try (Stream<Path> files = Files.list(additional)) {
        for (Path p : files.sorted().toList()) {
          String name = p.getFileName().toString();
          if (name.endsWith(".jinja")) {
            sources.putIfAbsent(name.substring(0, name.length() - ".jinja".length()),
                Files.readString(p, StandardCharsets.UTF_8));
          }
        }
      }
    }
    if (sources.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(ChatTemplate.named(sources, SpecialTokens.fromTokenizerConfig(config)));
  }

  /**
   * {@code --chat-template FILE}: the file's text is the template, or, for a {@code .json} file,
   * its {@code chat_template} field (a string or named list). Special tokens come from the model
   * folder's {@code tokenizer_config.json} when {@code modelDir} is given.
   */
  public static ChatTemplate fromFile(Path file, Path modelDir) throws IOException {
    SpecialTokens tokens = modelDir == null ? SpecialTokens.none()
        : SpecialTokens.fromTokenizerConfig(readJson(modelDir.resolve(TOKENIZER_CONFIG)));
    if (file.getFileName().toString().endsWith(".json")) {
      JsonObject json = readJson(file);
      if (!json.containsKey("chat_template")) {
        throw new IllegalArgumentException(file + " has no \"chat_template\" field");
      }
      return ChatTemplate.named(templatesOf(json.getValue("chat_template"), file), tokens);
    }
    return ChatTemplate.of(Files.readString(file, StandardCharsets.UTF_8), tokens);
  }

  /** A {@code chat_template} value: a string, or a list of {@code {"name", "template"}}. */
  static Map<String, String> templatesOf(Object value, Path where) {
    Map<String, String> sources = new LinkedHashMap<>();
    if (value instanceof String s) {
      sources.put(ChatTemplate.DEFAULT, s);
    } else if (value instanceof JsonArray list) {
      for (Object o : list) {
        if (!(o instanceof JsonObject t) || !(t.getValue("name") instanceof String name)
            || !(t.getValue("template") instanceof String template)) {
          throw new IllegalArgumentException(where + ": each named chat template must be"
              + " {\"name\": string, \"template\": string}, got " + o);
        }
        sources.put(name, template);
      }
    } else if (value != null) {
      throw new IllegalArgumentException(where + ": \"chat_template\" must be a string or a list"
          + " of named templates");
    }
    return sources;
  }

  private static JsonObject readJson(Path path) throws IOException {
    if (!Files.isRegularFile(path)) {
      return new JsonObject();
    }
    try {
      return new JsonObject(Files.readString(path, StandardCharsets.UTF_8));
    } catch (DecodeException e) {
      throw new IllegalArgumentException(path + " is not a JSON object: " + e.getMessage(), e);
    }
  }
}
