package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {

  private static final String STREAM = "data: {\"choices\":[{\"text\":\"h\u00e9llo \u2603\"}]}\n\n"
      + "data: {\"choices\":[{\"text\":\" world\",\"finish_reason\":\"length\"}]}\n\n"
      + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":2}}\n\n"
      + "data: [DONE]\n\n";

  @Test
  void parsesEventsAndDoneInOneBuffer() {
    List<String> got = new ArrayList<>();
    SseParser p = new SseParser(got::add);
    p.feed(STREAM.getBytes(StandardCharsets.UTF_8));
    p.end();
    assertEquals(3, got.size());
    assertEquals("{\"choices\":[{\"text\":\"h\u00e9llo \u2603\"}]}", got.get(0));
    assertTrue(p.sawDone());
    assertEquals(3, p.events());
  }

  @Test
  void anySplitOfTheBytesGivesTheSameEvents() {
    byte[] bytes = STREAM.getBytes(StandardCharsets.UTF_8);
    List<String> whole = new ArrayList<>();
    new SseParser(whole::add).feed(bytes);
    // Every cut point, including inside the multi-byte characters and between \n and \n.
    for (int cut = 0; cut <= bytes.length; cut++) {
      List<String> got = new ArrayList<>();
      SseParser p = new SseParser(got::add);
      p.feed(java.util.Arrays.copyOfRange(bytes, 0, cut));
      p.feed(java.util.Arrays.copyOfRange(bytes, cut, bytes.length));
      assertEquals(whole, got, "cut at " + cut);
      assertTrue(p.sawDone());
    }
    // Byte by byte.
    List<String> got = new ArrayList<>();
    SseParser p = new SseParser(got::add);
    for (byte b : bytes) {
      p.feed(new byte[] {b});
    }
    assertEquals(whole, got);
  }

  @Test
  void crlfCommentsMultiLineDataAndOtherFields() {
    List<String> got = new ArrayList<>();
    SseParser p = new SseParser(got::add);
    p.feed((": keep-alive\r\nevent: message\r\nid: 7\r\ndata: {\"a\":\r\ndata:1}\r\n\r\n"
        + "data:{\"b\":2}\r\rdata: [DONE]\r\n\r\n").getBytes(StandardCharsets.UTF_8));
    assertEquals(List.of("{\"a\":\n1}", "{\"b\":2}"), got);
    assertTrue(p.sawDone());
  }

  @Test
  void cutStreamHasNoDoneAndLastEventIsFlushedAtEnd() {
    List<String> got = new ArrayList<>();
    SseParser p = new SseParser(got::add);
    p.feed("data: {\"x\":1}\n\ndata: {\"x\":2}".getBytes(StandardCharsets.UTF_8));
    assertEquals(1, got.size());
    p.end();
    assertEquals(List.of("{\"x\":1}", "{\"x\":2}"), got);
    assertFalse(p.sawDone());
  }
}
