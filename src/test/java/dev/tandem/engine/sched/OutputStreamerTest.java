package dev.tandem.engine.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutputStreamerTest {
  private final ByteTokenizer tok = new ByteTokenizer();

  private OutputStreamer streamer(List<String> stops) {
    int[] prompt = tok.encode("prompt ");
    return new OutputStreamer(tok, prompt, prompt.length, stops);
  }

  @Test
  void neverEmitsHalfACharacter() {
    OutputStreamer s = streamer(List.of());
    byte[] euro = "€".getBytes(StandardCharsets.UTF_8); // 3 bytes
    assertEquals("", s.push(euro[0] & 0xff));
    assertEquals("", s.push(euro[1] & 0xff));
    assertEquals("€", s.push(euro[2] & 0xff));
    assertEquals("a", s.push('a'));
  }

  @Test
  void holdsBackAPossibleStopAndCutsAtIt() {
    OutputStreamer s = streamer(List.of("END"));
    StringBuilder out = new StringBuilder();
    for (int b : tok.encode("abc E")) {
      out.append(s.push(b));
    }
    assertEquals("abc ", out.toString(), "\"E\" may start END: held back");
    out.append(s.push('N'));
    assertFalse(s.stopped());
    out.append(s.push('D'));
    assertTrue(s.stopped());
    assertEquals("abc ", out.toString());
    assertEquals("", s.push('x'));
    assertEquals("", s.flush());
  }

  @Test
  void releasesHeldTextWhenItIsNoStopAfterAll() {
    OutputStreamer s = streamer(List.of("END"));
    StringBuilder out = new StringBuilder();
    for (int b : tok.encode("xEN")) {
      out.append(s.push(b));
    }
    assertEquals("x", out.toString());
    out.append(s.push('Z'));
    assertEquals("xENZ", out.toString());
    out.append(s.push('E'));
    out.append(s.flush());
    assertEquals("xENZE", out.toString(), "flush at the end gives back the held tail");
  }

  @Test
  void stopInsideOneTokenCutsMidToken() {
    OutputStreamer s = new OutputStreamer(new ByteTokenizer() {
      @Override
      public String decode(int[] ids) {
        StringBuilder b = new StringBuilder();
        for (int id : ids) {
          b.append(id == 1 ? "hello\nworld" : "?");
        }
        return b.toString();
      }
    }, new int[] {1}, 1, List.of("\n"));
    assertEquals("hello", s.push(1));
    assertTrue(s.stopped());
  }
}
