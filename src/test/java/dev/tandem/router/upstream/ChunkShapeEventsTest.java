package dev.tandem.router.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.SseParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Per-token events read whole by {@link ChunkShape#event}, before the SSE parser looks for their
 * line ends, against the plain parser and Jackson's reading of each event's data: whatever the
 * framing and wherever the stream is split, the same chunks, refusals and {@code [DONE]}.
 */
class ChunkShapeEventsTest {

  /** Per-token chunks: %s is the text's JSON, %d a token id. */
  private static final List<String> SHAPES = List.of(
      "{\"id\":\"cmpl-1\",\"choices\":[{\"finish_reason\":null,\"index\":0,\"logprobs\":null,"
          + "\"text\":%s,\"token_ids\":[%d]}],\"created\":1733,\"model\":\"m\","
          + "\"object\":\"text_completion\",\"usage\":null}",
      "{\"id\":\"cmpl-2\",\"choices\":[{\"finish_reason\":null,\"index\":0,\"logprobs\":null,"
          + "\"text\":%s}],\"created\":0,\"model\":null,\"object\":\"text_completion\"}",
      " { \"choices\" : [ { \"token_ids\" : [ %2$d , 7 ] , \"index\" : 0 , \"text\" : %1$s } ] } ");

  private static final List<String> TEXTS = List.of("\"Hello\"", "\" world\"", "\"\"",
      "\"a\\\"b\\\\c\\n\\u00e9\"", "\"h\u00e9llo \ud83d\ude00\"", "\"x\"");

  /** Where a data line ends and what ends its event. */
  private static final List<String[]> FRAMINGS = List.of(
      new String[] {"data: ", "\n\n"}, new String[] {"data:", "\n\n"},
      new String[] {"data: ", "\r\n\r\n"}, new String[] {"data: ", "\r\r"},
      new String[] {"data: ", "\n\r\n"});

  @Test
  void eventsAreReadAsTheParserReadsThemWhereverTheStreamIsSplit() {
    int taken = 0;
    for (String shape : SHAPES) {
      for (String[] framing : FRAMINGS) {
        byte[] sse = stream(shape, framing[0], framing[1]).getBytes(StandardCharsets.UTF_8);
        List<Object> expected = reference(sse);
        for (int split = 0; split <= sse.length; split++) {
          int[] count = new int[1];
          List<Object> actual = fast(sse, split, count);
          String where = shape + " framed " + framing[0] + "|" + framing[1].replace("\r", "\\r")
              .replace("\n", "\\n") + ", split at " + split;
          assertEquals(expected.size(), actual.size(), where);
          for (int k = 0; k < expected.size(); k++) {
            if (expected.get(k) instanceof EngineChunk e) {
              assertTrue(actual.get(k) instanceof EngineChunk, where + ": event " + k);
              ChunkScannerTest.assertSame(e, (EngineChunk) actual.get(k), where + ": event " + k);
            } else {
              assertEquals(expected.get(k), actual.get(k), where + ": event " + k);
            }
          }
          if (framing[1].equals("\n\n") || framing[1].equals("\r\n\r\n")) {
            assertTrue(count[0] >= 3, where + ": only " + count[0] + " events read whole");
          }
          taken += count[0];
        }
      }
    }
    assertTrue(taken > 1000, "only " + taken + " events read whole");
  }

  /**
   * Tokens, then what must not be read whole: a comment and an event field before a token, a
   * chunk over two data lines (white space in its JSON), the same with a second line that is no
   * data line, two data lines in one event, token ids broken by a line end, a finish, usage and
   * [DONE].
   */
  private static String stream(String shape, String data, String end) {
    StringBuilder sb = new StringBuilder(": ping" + end.substring(0, end.length() / 2));
    int id = 100;
    for (String text : TEXTS) {
      sb.append(data).append(String.format(shape, text, id++)).append(end);
    }
    String token = String.format(shape, "\"t\"", 5);
    sb.append("event: token\n").append(data).append(token).append(end);
    int comma = token.indexOf(',');
    sb.append(data).append(token, 0, comma + 1).append('\n').append(data)
        .append(token.substring(comma + 1)).append(end);
    // as the chunk just learned, but its second line is no data line: not a chunk at all
    sb.append(data).append(token, 0, comma + 1).append('\n').append(token.substring(comma + 1))
        .append(end);
    sb.append(data).append(String.format(shape, "\"again\"", 6)).append(end);
    sb.append(data).append(token).append('\n').append(data).append("{}").append(end);
    sb.append(data).append(token.replace(" , 7", ",\n7")).append(end);
    sb.append(data).append(String.format(shape, "\"after\"", 8)).append(end);
    sb.append(data).append(token.replace("null", "\"stop\"")).append(end);
    sb.append(data).append("{\"choices\":[],\"usage\":{\"completion_tokens\":9}}").append(end);
    return sb.append(data).append("[DONE]").append(end).toString();
  }

  private static List<Object> reference(byte[] sse) {
    List<Object> out = new ArrayList<>();
    SseParser parser = new SseParser((b, o, n) -> out.add(reading(b, o, n, null)));
    parser.feed(sse, 0, sse.length);
    parser.finish();
    return out;
  }

  private static List<Object> fast(byte[] sse, int split, int[] count) {
    List<Object> out = new ArrayList<>();
    ChunkShape shape = new ChunkShape();
    SseParser parser = new SseParser((b, o, n) -> out.add(reading(b, o, n, shape)),
        (b, from, end) -> {
          int length = shape.eventTo(b, from, end, out::add); // the chunk, whole (token's default)
          if (length >= 0) {
            count[0]++;
          }
          return length;
        });
    // each part in its own array, as buffers come: nothing may be read beyond a part's end
    byte[] first = Arrays.copyOfRange(sse, 0, split);
    byte[] second = Arrays.copyOfRange(sse, split, sse.length);
    parser.feed(first, 0, first.length);
    parser.feed(second, 0, second.length);
    parser.finish();
    return out;
  }

  private static Object reading(byte[] b, int offset, int length, ChunkShape shape) {
    String data = new String(b, offset, length, StandardCharsets.UTF_8);
    if (data.trim().equals("[DONE]")) {
      return "[DONE]";
    }
    try {
      return shape == null ? EngineChunk.jackson(b, offset, length) : shape.read(b, offset, length);
    } catch (IllegalArgumentException refused) {
      return "refused";
    }
  }
}
