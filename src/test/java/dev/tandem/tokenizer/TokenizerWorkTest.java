package dev.tandem.tokenizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Where a request's tokenizer work runs: on the asking event loop when small, else a worker. */
class TokenizerWorkTest {
  static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    vertx.close().await();
  }

  /** What happened when {@code onLoop} work ran, asked from an event loop. */
  private record Ran(String loop, String worker, boolean completeAtOnce, Object result,
      Throwable failure) {}

  private static Ran ask(boolean onLoop, boolean fail) throws Exception {
    CompletableFuture<Ran> ran = new CompletableFuture<>();
    Context context = vertx.getOrCreateContext();
    CountDownLatch looked = new CountDownLatch(1);
    context.runOnContext(v -> {
      String loop = Thread.currentThread().getName();
      String[] worker = new String[1];
      Future<String> f = TokenizerWork.run(vertx, onLoop, () -> {
        worker[0] = Thread.currentThread().getName();
        if (!worker[0].equals(loop)) { // a worker: not done before the loop has looked
          looked.await(10, TimeUnit.SECONDS);
        }
        if (fail) {
          throw new IllegalArgumentException("no");
        }
        return "ids";
      });
      boolean atOnce = f.isComplete();
      looked.countDown();
      f.onComplete(r -> ran.complete(new Ran(loop, worker[0], atOnce, r.result(), r.cause())));
    });
    return ran.get(10, TimeUnit.SECONDS);
  }

  @Test
  void smallWorkRunsOnTheAskingLoopAndIsDoneAtOnce() throws Exception {
    Ran ran = ask(true, false);
    assertTrue(ran.loop().contains("eventloop"), ran.loop());
    assertEquals(ran.loop(), ran.worker());
    assertTrue(ran.completeAtOnce());
    assertEquals("ids", ran.result());
  }

  @Test
  void otherWorkRunsOnAWorker() throws Exception {
    Ran ran = ask(false, false);
    assertNotEquals(ran.loop(), ran.worker());
    assertTrue(ran.worker().contains("worker"), ran.worker());
    assertFalse(ran.completeAtOnce());
    assertEquals("ids", ran.result());
  }

  @Test
  void aFailureIsTheFuturesEitherWay() throws Exception {
    for (boolean onLoop : new boolean[] {true, false}) {
      Ran ran = ask(onLoop, true);
      assertTrue(ran.failure() instanceof IllegalArgumentException, String.valueOf(ran.failure()));
      assertEquals("no", ran.failure().getMessage());
    }
  }

  @Test
  void theLinesAndTheCacheThatOnlyLongerTextsUse() {
    assertTrue(TokenizerWork.textOnLoop(0));
    assertTrue(TokenizerWork.textOnLoop(1023));
    assertFalse(TokenizerWork.textOnLoop(1024));
    assertTrue(TokenizerWork.idsOnLoop(256));
    assertFalse(TokenizerWork.idsOnLoop(257));
    // a text short enough for the loop is never looked up among the kept beginnings (their lock)
    assertTrue(TokenizerWork.MAX_LOOP_CHARS < PrefixIds.MIN_CHARS);
  }
}
