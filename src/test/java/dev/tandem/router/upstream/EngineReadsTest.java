package dev.tandem.router.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Work waits for the end of the read whose message is being delivered, and only while one is:
 * a delivery nested in another (a resume) keeps its own, and what waited runs once, in order.
 */
class EngineReadsTest {

  private final EngineReads reads = EngineReads.ofThisThread();

  @Test
  void nothingWaitsOutsideADelivery() {
    assertFalse(EngineReads.afterThisRead(() -> {
      throw new AssertionError("ran");
    }));
  }

  @Test
  void aNestedDeliveryKeepsItsOwnAndTheOuterOneGoesOn() {
    List<String> ran = new ArrayList<>();
    ArrayList<Runnable> read = new ArrayList<>();
    ArrayList<Runnable> resume = new ArrayList<>();
    ArrayList<Runnable> none = reads.enter(read);
    assertTrue(EngineReads.afterThisRead(() -> ran.add("read")));
    ArrayList<Runnable> outer = reads.enter(resume); // a resume inside the delivery
    assertSame(read, outer);
    assertTrue(EngineReads.afterThisRead(() -> ran.add("resume")));
    reads.exit(outer);
    EngineReads.runAll(resume);
    assertTrue(EngineReads.afterThisRead(() -> ran.add("read, later")));
    reads.exit(none);
    assertFalse(EngineReads.afterThisRead(() -> ran.add("outside")), "the delivery is over");
    assertEquals(List.of("resume"), ran, "the read's own work waits for its end");
    EngineReads.runAll(read);
    assertEquals(List.of("resume", "read", "read, later"), ran);
    EngineReads.runAll(read);
    assertEquals(3, ran.size(), "each once");
  }

  @Test
  void everyTaskRunsAndTheFirstFailureIsRethrown() {
    List<String> ran = new ArrayList<>();
    IllegalStateException first = new IllegalStateException("first");
    ArrayList<Runnable> read = new ArrayList<>();
    read.add(() -> {
      throw first;
    });
    read.add(() -> ran.add("second"));
    read.add(() -> {
      throw new IllegalArgumentException("third");
    });
    assertSame(first, assertThrows(IllegalStateException.class, () -> EngineReads.runAll(read)));
    assertEquals(List.of("second"), ran);
    assertTrue(read.isEmpty(), "emptied all the same");
  }
}
