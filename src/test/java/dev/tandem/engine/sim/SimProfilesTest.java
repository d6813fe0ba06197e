package dev.tandem.engine.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every shipped profile loads, names its sources, and reproduces each published figure it cites
 * within +-25% (the timing model run offline on the real scheduler, simulated clock).
 */
class SimProfilesTest {

  @Test
  void shippedProfilesMatchTheirPublishedFiguresWithin25Percent() throws Exception {
    for (String name : SimProfile.SHIPPED) {
      SimProfile p = SimProfile.load(name);
      assertEquals(name, p.name());
      assertFalse(p.sources().isEmpty(), name + " names no sources");
      assertFalse(p.checks().isEmpty(), name + " is checked against nothing");
      for (SimProfile.Check c : p.checks()) {
        SimThroughput.Result r = SimThroughput.run(p, c);
        double ratio = c.ttftMs() > 0 ? r.seconds() * 1000 / c.ttftMs()
            : r.outputTokPerS() / c.outputTokPerS();
        assertTrue(ratio > 0.75 && ratio < 1.25, name + " " + c.what() + ": simulated/published = "
            + ratio);
      }
    }
  }

  @Test
  void llama3EightBHasItsRealParameterCount() throws IOException {
    SimProfile.Model m = SimProfile.load("h100-llama3-8b").model();
    assertEquals(8.03e9, m.totalParams(), 0.01e9);
    assertEquals(65536, m.kvBytesPerToken(), 0.0); // 2 x 32 layers x 8 heads x 128 x 1 byte
  }

  @Test
  void aProfileCanBeAFile(@TempDir Path dir) throws IOException {
    String json;
    try (var in = SimProfile.class.getResourceAsStream(SimProfile.RESOURCE_DIR + "a100-llama2-13b.json")) {
      json = new String(in.readAllBytes()).replace("\"a100-llama2-13b\"", "\"mine\"");
    }
    Path file = dir.resolve("mine.json");
    Files.writeString(file, json);
    assertEquals("mine", SimProfile.load(file.toString()).name());
  }

  @Test
  void badProfilesSayWhatIsWrong() {
    IOException missing = assertThrows(IOException.class, () -> SimProfile.load("h100-nothing"));
    assertTrue(missing.getMessage().contains("h100-llama3-8b"), missing.getMessage());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SimProfile.parse("{\"gpu\": {}}", "x.json"));
    assertTrue(e.getMessage().startsWith("x.json") || e.getMessage().contains("peak_tflops"),
        e.getMessage());
  }
}
