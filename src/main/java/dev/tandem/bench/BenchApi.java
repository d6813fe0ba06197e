package dev.tandem.bench;

/**
 * Which OpenAI endpoint a run drives: completions (a prompt: text or token ids) or chat
 * completions (messages: each turn of a conversation as the user and assistant messages it holds,
 * a shared prefix as the system message), the API chat clients use and the one whose prompts a
 * router renders and tokenizes itself.
 */
public enum BenchApi {
  COMPLETIONS("/v1/completions"),
  CHAT("/v1/chat/completions");

  private final String path;

  BenchApi(String path) {
    this.path = path;
  }

  /** The endpoint's path under the server's base URL. */
  public String path() {
    return path;
  }

  /** {@code completions} or {@code chat}, as {@code --api} takes it. */
  public static BenchApi parse(String name) {
    return switch (name.toLowerCase(java.util.Locale.ROOT)) {
      case "completions" -> COMPLETIONS;
      case "chat" -> CHAT;
      default -> throw new IllegalArgumentException("--api must be completions or chat, got " + name);
    };
  }
}
