package dev.tandem.router.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ByEngineTest {

  @Test
  void oneValuePerEngineMadeOnFirstUseWhateverTheId() {
    List<Integer> made = new ArrayList<>();
    ByEngine<String> byEngine = new ByEngine<>(e -> {
      made.add(e);
      return "engine " + e;
    });
    assertEquals("engine -1", byEngine.get(-1), "none has a slot of its own");
    assertEquals("engine 0", byEngine.get(0));
    assertEquals("engine 1000", byEngine.get(1000), "far beyond the first array");
    assertEquals("engine 7", byEngine.get(7));
    assertSame(byEngine.get(1000), byEngine.get(1000));
    assertSame(byEngine.get(0), byEngine.get(0));
    assertEquals(List.of(-1, 0, 1000, 7), made, "each made once");
    assertThrows(IllegalArgumentException.class, () -> byEngine.get(-2));
  }
}
