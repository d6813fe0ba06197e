package dev.tandem.chat;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * {@code --tool-call-parser hermes}: finds the {@code <tool_call>{"name": ..., "arguments": ...}
 * </tool_call>} blocks that Hermes and Qwen models write, in a whole answer or as it streams.
 *
 * <p>What is content: the text outside the blocks, without the whitespace right before a
 * {@code <tool_call>} and right after a {@code </tool_call>}; null when that leaves nothing and
 * there were tool calls. A block whose JSON is not an object with a {@code name} stays text, tags
 * and all. A block left open at the end of the answer is parsed as if closed. The streaming
 * version holds back text that may be the start of {@code <tool_call>} (and whitespace that may
 * precede one) and reports each call when its block closes, so that streamed content and calls
 * equal the whole-answer ones for any split of the text. One instance per answer (choice); not
 * thread-safe.
 */
public final class HermesToolParser {
  public static final String START = "<tool_call>";
  public static final String END = "</tool_call>";

  /** What the parser found in the text so far. */
  public sealed interface Event {}

  /** Content text to send now. */
  public record Text(String text) implements Event {}

  /** A complete tool call, the {@code index}-th of this answer. */
  public record Call(int index, ChatMessage.ToolCall call) implements Event {}

  /** A whole answer split into content (null if none) and tool calls. */
  public record ParsedAnswer(String content, List<ChatMessage.ToolCall> toolCalls) {}

  private enum Mode { TEXT, BLOCK, AFTER_BLOCK }

  private final Supplier<String> ids;
  private final StringBuilder pending = new StringBuilder();
  private Mode mode = Mode.TEXT;
  private int calls;

  public HermesToolParser(Supplier<String> ids) {
    this.ids = ids;
  }

  public HermesToolParser() {
    this(HermesToolParser::newCallId);
  }

  /** {@code call_} and 24 lowercase hex digits. */
  public static String newCallId() {
    return "call_" + UUID.randomUUID().toString().replace("-", "").substring(0, 24);
  }

  /** Parses a whole answer. */
  public static ParsedAnswer parse(String text, Supplier<String> ids) {
    HermesToolParser parser = new HermesToolParser(ids);
    List<Event> events = new ArrayList<>(parser.push(text));
    events.addAll(parser.finish());
    StringBuilder content = new StringBuilder();
    List<ChatMessage.ToolCall> toolCalls = new ArrayList<>();
    for (Event e : events) {
      if (e instanceof Text t) {
        content.append(t.text());
      } else if (e instanceof Call c) {
        toolCalls.add(c.call());
      }
    }
    return new ParsedAnswer(content.isEmpty() && !toolCalls.isEmpty() ? null : content.toString(), toolCalls);
  }

  /** Number of tool calls found so far. */
  public int calls() {
    return calls;
  }

  /** Feeds the next piece of the answer; returns what can be sent now. */
  public List<Event> push(String text) {
    pending.append(text);
    List<Event> events = new ArrayList<>();
    while (true) {
      if (mode == Mode.AFTER_BLOCK) {
        int i = 0;
        while (i < pending.length() && Character.isWhitespace(pending.charAt(i))) {
          i++;
        }
        pending.delete(0, i);
        if (pending.isEmpty()) {
          return events;
        }
        mode = Mode.TEXT;
      }
      if (mode == Mode.TEXT) {
        int start = pending.indexOf(START);
        if (start < 0) {
          int keep = heldBack();
          text(events, pending.substring(0, pending.length() - keep));
          pending.delete(0, pending.length() - keep);
          return events;
        }
        text(events, stripTrailing(pending.substring(0, start)));
        pending.delete(0, start + START.length());
        mode = Mode.BLOCK;
      }
      int end = pending.indexOf(END);
      if (end < 0) {
        return events;
      }
      block(events, pending.substring(0, end), true);
      pending.delete(0, end + END.length());
      mode = Mode.AFTER_BLOCK;
    }
  }

  /** The end of the answer: sends what was held back, and parses a block left open. */
  public List<Event> finish() {
    List<Event> events = new ArrayList<>();
    if (mode == Mode.TEXT) {
      text(events, pending.toString());
    } else if (mode == Mode.BLOCK) {
      block(events, pending.toString(), false);
    }
    pending.setLength(0);
    mode = Mode.AFTER_BLOCK;
    return events;
  }

  /** How many characters at the end of pending text must wait: a possible tag start and the whitespace before it. */
  private int heldBack() {
    int partial = 0;
    for (int n = Math.min(START.length() - 1, pending.length()); n > 0; n--) {
      if (START.startsWith(pending.substring(pending.length() - n))) {
        partial = n;
        break;
      }
    }
    int i = pending.length() - partial;
    while (i > 0 && Character.isWhitespace(pending.charAt(i - 1))) {
      i--;
    }
    return pending.length() - i;
  }

  private void block(List<Event> events, String body, boolean closed) {
    ChatMessage.ToolCall call = toolCall(body);
    if (call == null) {
      events.add(new Text(START + body + (closed ? END : "")));
    } else {
      events.add(new Call(calls++, call));
    }
  }

  private ChatMessage.ToolCall toolCall(String body) {
    JsonObject json;
    try {
      json = new JsonObject(body.strip());
    } catch (DecodeException | ClassCastException e) {
      return null;
    }
    if (!(json.getValue("name") instanceof String name) || name.isEmpty()) {
      return null;
    }
    Object args = json.containsKey("arguments") ? json.getValue("arguments") : json.getValue("parameters");
    String arguments = args == null ? "{}" : args instanceof String s ? s
        : io.vertx.core.json.Json.encode(args);
    return new ChatMessage.ToolCall(ids.get(), name, arguments);
  }

  private static void text(List<Event> events, String text) {
    if (!text.isEmpty()) {
      events.add(new Text(text));
    }
  }

  private static String stripTrailing(String s) {
    int end = s.length();
    while (end > 0 && Character.isWhitespace(s.charAt(end - 1))) {
      end--;
    }
    return s.substring(0, end);
  }
}
