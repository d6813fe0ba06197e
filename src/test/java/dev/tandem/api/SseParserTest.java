package dev.tandem.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {

  private static List<String> parseInPieces(byte[] bytes, int piece) {
    List<String> out = new ArrayList<>();
    SseParser p = new SseParser(out::add);
    for (int i = 0; i < bytes.length; i += piece) {
      p.feed(Buffer.buffer().appendBytes(bytes, i, Math.min(piece, bytes.length - i)));
    }
    p.finish();
    return out;
  }

  @Test
  void eventsSurviveAnySplitIncludingInsideUtf8AndCrlf() {
    String stream = "data: {\"t\":\"héllo ✓\"}\r\n\r\n: comment\n\ndata: {\"t\":\"2\"}\n\ndata: [DONE]\n\n";
    byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
    for (int piece = 1; piece <= bytes.length; piece++) {
      assertEquals(List.of("{\"t\":\"héllo ✓\"}", "{\"t\":\"2\"}", "[DONE]"),
          parseInPieces(bytes, piece), "piece size " + piece);
    }
  }

  @Test
  void multiLineDataAndOtherFields() {
    String stream = "event: x\nid: 3\ndata:a\ndata: b\n\nretry: 10\n\n";
    assertEquals(List.of("a\nb"), parseInPieces(stream.getBytes(StandardCharsets.UTF_8), 1000));
  }

  @Test
  void crOnlyLineEndsBareDataAndLookAlikeFieldsInAnySplit() {
    byte[] bytes = "data: a\r\rdatax: no\rdata\rdata:b\r\r\n\ndata:  c\n\n".getBytes(StandardCharsets.UTF_8);
    for (int piece = 1; piece <= bytes.length; piece++) {
      assertEquals(List.of("a", "\nb", " c"), parseInPieces(bytes, piece), "piece size " + piece);
    }
  }

  @Test
  void bytesHandlerSeesTheDataRange() {
    List<String> out = new ArrayList<>();
    SseParser p = new SseParser((bytes, offset, length) ->
        out.add(new String(bytes, offset, length, StandardCharsets.UTF_8)));
    p.feed(Buffer.buffer("data: {\"a\":1}\n\ndata: [DONE]\n\n"));
    assertEquals(List.of("{\"a\":1}", "[DONE]"), out);
  }

  @Test
  void trailingEventWithoutBlankLineIsDispatchedAtFinish() {
    assertEquals(List.of("x", "y"), parseInPieces("data: x\n\ndata: y".getBytes(StandardCharsets.UTF_8), 3));
  }

  @Test
  void overlongLineIsRefused() {
    SseParser p = new SseParser(s -> {});
    byte[] big = new byte[SseParser.MAX_LINE_BYTES + 1];
    java.util.Arrays.fill(big, (byte) 'a');
    assertThrows(IllegalStateException.class, () -> p.feed(Buffer.buffer(big)));
  }

  /** The word-at-a-time search finds the first CR or LF at every offset, or none. */
  @Test
  void lineEndFindsTheFirstCrOrLfAnywhere() {
    java.util.Random r = new java.util.Random(3);
    for (int n = 0; n < 20000; n++) {
      byte[] b = new byte[r.nextInt(40)];
      for (int i = 0; i < b.length; i++) {
        int k = r.nextInt(12);
        b[i] = (byte) (k == 0 ? '\n' : k == 1 ? '\r' : k == 2 ? 0x8a : k == 3 ? 0x0b : r.nextInt(256));
      }
      int from = b.length == 0 ? 0 : r.nextInt(b.length + 1);
      int expected = -1;
      for (int i = from; i < b.length; i++) {
        if (b[i] == '\n' || b[i] == '\r') {
          expected = i;
          break;
        }
      }
      assertEquals(expected, SseParser.lineEnd(b, from, b.length), java.util.Arrays.toString(b));
    }
  }
}
