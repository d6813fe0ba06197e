package dev.tandem.engine.sched;

import static dev.tandem.engine.sched.EngineTestSupport.engine;
import static dev.tandem.engine.sched.EngineTestSupport.greedy;
import static dev.tandem.engine.sched.EngineTestSupport.options;
import static dev.tandem.engine.sched.EngineTestSupport.prompt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Back-pressure: a request held for its slow client stops decoding, others run on, and it resumes exactly. */
class OutputHoldTest {

  @Test
  void heldRequestWaitsWhileOthersRunAndResumesWithTheSameTokens() throws Exception {
    try (Engine e = engine(options(4, 64, 512, false))) {
      Collector held = new Collector();
      AtomicBoolean holdRequested = new AtomicBoolean();
      // the slow client: asks for a hold as soon as its first output arrives
      GenerationListener slow = new GenerationListener() {
        @Override
        public void onOutput(GenerationOutput output) {
          held.onOutput(output);
          if (holdRequested.compareAndSet(false, true)) {
            e.holdOutput("slow", this, true);
          }
        }

        @Override
        public void onFailure(Throwable failure) {
          held.onFailure(failure);
        }
      };
      e.submit(greedy("slow", prompt(1, 30), 200), slow);
      Collector other = new Collector();
      e.submit(greedy("other", prompt(2, 30), 60), other);
      assertArrayEquals(ChainedHashModel.reference(prompt(2, 30), 60), other.await().tokens(0));

      int soFar;
      synchronized (held) {
        soFar = held.tokens.get(0).size();
      }
      assertTrue(soFar < 10, "a held request kept decoding: " + soFar + " tokens");
      assertFalse(held.done.isDone());
      assertEquals(1, e.stats().running(), "the held request keeps its place and its KV");

      e.holdOutput("slow", slow, false);
      assertArrayEquals(ChainedHashModel.reference(prompt(1, 30), 200), held.await().tokens(0));
    }
  }

  @Test
  void holdingAnUnknownOrFinishedRequestIsHarmless() throws Exception {
    try (Engine e = engine(options(2, 16, 512, false))) {
      e.holdOutput("nobody", new Collector(), true);
      Collector c = new Collector();
      e.submit(greedy("x", prompt(3, 10), 5), c);
      c.await();
      Collector again = new Collector();
      e.submit(greedy("x", prompt(3, 10), 5), again);
      // a late hold from the first request's client must not stop the second request with its id
      e.holdOutput("x", c, true);
      assertArrayEquals(c.tokens(0), again.await().tokens(0), "a new request with the id is not held");
    }
  }
}
