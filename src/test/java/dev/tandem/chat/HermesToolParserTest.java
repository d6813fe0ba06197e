package dev.tandem.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class HermesToolParserTest {

  private static Supplier<String> ids() {
    AtomicInteger n = new AtomicInteger();
    return () -> "call_" + n.getAndIncrement();
  }

  private static HermesToolParser.ParsedAnswer parse(String text) {
    return HermesToolParser.parse(text, ids());
  }

  private static ChatMessage.ToolCall call(String id, String name, String arguments) {
    return new ChatMessage.ToolCall(id, name, arguments);
  }

  @Test
  void splitsContentFromToolCalls() {
    HermesToolParser.ParsedAnswer a = parse("Let me check.\n<tool_call>\n{\"name\": \"get_weather\","
        + " \"arguments\": {\"city\": \"Zürich\", \"days\": 2}}\n</tool_call>\n<tool_call>\n"
        + "{\"name\": \"search\", \"arguments\": {\"q\": \"x\"}}\n</tool_call>");
    assertEquals("Let me check.", a.content());
    assertEquals(List.of(call("call_0", "get_weather", "{\"city\":\"Zürich\",\"days\":2}"),
        call("call_1", "search", "{\"q\":\"x\"}")), a.toolCalls());
  }

  @Test
  void onlyToolCallsLeaveNoContent() {
    HermesToolParser.ParsedAnswer a = parse("\n<tool_call>{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}</tool_call>\n");
    assertNull(a.content());
    assertEquals(List.of(call("call_0", "f", "{\"a\":1}")), a.toolCalls(), "string arguments are kept as sent");
    assertEquals(List.of(call("call_0", "g", "{}")), parse("<tool_call>{\"name\":\"g\"}</tool_call>").toolCalls());
  }

  @Test
  void textWithoutBlocksIsUntouched() {
    for (String text : List.of("", "plain answer  \n", "a < b and <tool_ is not a tag", "x <tool_call")) {
      HermesToolParser.ParsedAnswer a = parse(text);
      assertEquals(text, a.content());
      assertTrue(a.toolCalls().isEmpty());
    }
  }

  @Test
  void textBetweenAndAfterBlocksIsContent() {
    HermesToolParser.ParsedAnswer a = parse("A <tool_call>{\"name\":\"f\"}</tool_call> B\n<tool_call>{\"name\":\"g\"}</tool_call>\n C ");
    assertEquals("AB" + "C ", a.content());
    assertEquals(2, a.toolCalls().size());
  }

  @Test
  void aBlockThatIsNotAToolCallStaysText() {
    assertEquals("see<tool_call>not json</tool_call>end", parse("see <tool_call>not json</tool_call> end").content());
    assertEquals("<tool_call>{\"arguments\": {}}</tool_call>", parse("<tool_call>{\"arguments\": {}}</tool_call>").content());
    assertEquals("<tool_call>[1, 2]</tool_call>", parse("<tool_call>[1, 2]</tool_call>").content());
  }

  @Test
  void aBlockLeftOpenAtTheEndIsParsedOrKept() {
    HermesToolParser.ParsedAnswer done = parse("ok <tool_call>\n{\"name\": \"f\", \"parameters\": {\"a\": [1]}}\n");
    assertEquals("ok", done.content());
    assertEquals(List.of(call("call_0", "f", "{\"a\":[1]}")), done.toolCalls());
    HermesToolParser.ParsedAnswer cut = parse("ok <tool_call>{\"name\": \"f\", \"argu");
    assertEquals("ok<tool_call>{\"name\": \"f\", \"argu", cut.content());
    assertTrue(cut.toolCalls().isEmpty());
  }

  static Stream<String> answers() {
    return Stream.of(
        "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Zürich\"}}\n</tool_call>",
        "<tool_call>{\"name\":\"a\"}</tool_call>\n\n<tool_call>{\"name\":\"b\",\"arguments\":{}}</tool_call> tail",
        "no tools here, just <tool and < tool_call> and <tool_call text",
        "  spaced  \n\n  <tool_call> {\"name\": \"f\"} </tool_call>  \n after \n",
        "bad <tool_call>{oops}</tool_call> then <tool_call>{\"name\":\"ok\"}</tool_call>",
        "open at the end <tool_call>{\"name\": \"f\", \"arguments\": {\"x\": \"</tool\"}}",
        "😀 unicode <tool_call>{\"name\":\"ü\",\"arguments\":{\"k\":\"日本\"}}</tool_call>");
  }

  /** Streamed in two pieces split at every character, and one character at a time. */
  @ParameterizedTest
  @MethodSource("answers")
  void streamingAgreesWithTheWholeAnswerAtEverySplit(String answer) {
    HermesToolParser.ParsedAnswer whole = parse(answer);
    for (int split = 0; split <= answer.length(); split++) {
      assertEquals(whole, stream(List.of(answer.substring(0, split), answer.substring(split))),
          "split at " + split);
    }
    List<String> chars = new ArrayList<>();
    answer.codePoints().forEach(cp -> chars.add(new String(Character.toChars(cp))));
    assertEquals(whole, stream(chars), "one character at a time");
  }

  /** Never sends text that might still turn into a tool call. */
  @Test
  void holdsBackWhatMayStartATag() {
    HermesToolParser p = new HermesToolParser(ids());
    assertEquals(List.of(new HermesToolParser.Text("Sure")), p.push("Sure <tool_"));
    assertEquals(List.of(), p.push("call>{\"name\":"));
    assertEquals(List.of(new HermesToolParser.Call(0, call("call_0", "f", "{}"))), p.push("\"f\"}</tool_call>"));
    assertEquals(List.of(new HermesToolParser.Text("x")), p.push("x <tool"));
    assertEquals(List.of(new HermesToolParser.Text(" <tool")), p.finish(), "sent at the end: not a tag");
  }

  private static HermesToolParser.ParsedAnswer stream(List<String> pieces) {
    HermesToolParser p = new HermesToolParser(ids());
    List<HermesToolParser.Event> events = new ArrayList<>();
    pieces.forEach(piece -> events.addAll(p.push(piece)));
    events.addAll(p.finish());
    StringBuilder content = new StringBuilder();
    List<ChatMessage.ToolCall> calls = new ArrayList<>();
    for (HermesToolParser.Event e : events) {
      if (e instanceof HermesToolParser.Text t) {
        assertTrue(!t.text().isEmpty(), "no empty text events");
        content.append(t.text());
      } else {
        HermesToolParser.Call c = (HermesToolParser.Call) e;
        assertEquals(calls.size(), c.index());
        calls.add(c.call());
      }
    }
    return new HermesToolParser.ParsedAnswer(content.isEmpty() && !calls.isEmpty() ? null : content.toString(), calls);
  }
}
