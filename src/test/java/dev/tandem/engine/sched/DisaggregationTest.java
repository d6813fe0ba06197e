package dev.tandem.engine.sched;

import static dev.tandem.engine.sched.EngineTestSupport.greedy;
import static dev.tandem.engine.sched.EngineTestSupport.options;
import static dev.tandem.engine.sched.EngineTestSupport.prompt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ApiError;
import dev.tandem.kv.KvAppendMetadata;
import dev.tandem.kv.KvRows;
import dev.tandem.kv.KvTransferException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The MicroServing state machine across two in-process engines (P computes, D decodes). */
class DisaggregationTest {
  private Engine p;
  private Engine d;
  private ChainedHashModel dModel;
  private InProcessKvShipper shipper;

  @BeforeEach
  void start() {
    p = EngineTestSupport.engine(options(8, 256, 64, true));
    dModel = new ChainedHashModel(4096);
    d = new Engine(dModel, new ByteTokenizer(),
        new EngineOptions(8, 256, 64, 4096, true, Duration.ofMillis(400)));
    d.start();
    shipper = new InProcessKvShipper(Map.of(1, d));
  }

  @AfterEach
  void stop() {
    p.close();
    d.close();
  }

  /** prep_recv on D, remote_send on P (if D lacks part of the window), start_generate on D. */
  private Collector chain(GenerationRequest req, int end) throws Exception {
    PrepareReceiveResult prep = d.prepareReceive(req, end).get(10, TimeUnit.SECONDS);
    int len = req.promptTokens().length;
    int endN = end < 0 ? len + end : end;
    if (prep.prefixMatchedLength() < endN) {
      int[] slots = KvAppendMetadata.decode(prep.kvAppendMetadata());
      p.remoteSend(req, prep.prefixMatchedLength(), endN, slots, 1, shipper).get(10, TimeUnit.SECONDS);
    }
    Collector c = new Collector();
    d.startGenerate(req.id(), endN, c);
    return c.await();
  }

  @Test
  void disaggregatedAnswersEqualColocatedOnes() throws Exception {
    int n = 0;
    for (int len : new int[] {1, 2, 15, 16, 17, 33, 64, 100}) {
      for (int end : new int[] {-1, len / 2, 0}) {
        if (len + end < 0 || (end >= 0 && end >= len)) {
          continue;
        }
        int[] prompt = prompt(n, len); // a fresh prompt per case: no help from D's own cache
        Collector c = chain(greedy("g" + n++, prompt, 6), end);
        assertArrayEquals(ChainedHashModel.reference(prompt, 6), c.tokens(0), "len " + len + " end " + end);
        int endN = end < 0 ? len + end : end;
        assertEquals(len - endN, c.usage.prefillTokens(), "D computes only what the window leaves it");
      }
    }
    assertTrue(d.counters().kvReceivedTokens.get() > 0);
    assertEquals(256, waitFree(d, 256));
  }

  @Test
  void seededSamplingAndLogprobsMatchColocated() throws Exception {
    int[] prompt = prompt(9, 70);
    SamplingParams s = new SamplingParams(0.8, 0.9, 1234, 12, 3, List.of(), true);
    Collector colocated = new Collector();
    p.submit(new GenerationRequest("local", prompt, 2, s), colocated);
    colocated.await();
    Collector disagg = chain(new GenerationRequest("remote", prompt, 2, s), 50);
    for (int i = 0; i < 2; i++) {
      assertArrayEquals(colocated.tokens(i), disagg.tokens(i));
      for (int t = 0; t < 12; t++) {
        assertEquals(colocated.logprobs.get(i).get(t), disagg.logprobs.get(i).get(t));
      }
    }
  }

  @Test
  void aSendFailedByAStepFaultCanBeSentAgain() throws Exception {
    ChainedHashModel pModel = new ChainedHashModel(4096);
    Engine faulty = new Engine(pModel, new ByteTokenizer(), options(8, 256, 64, true));
    faulty.start();
    try {
      int[] prompt = prompt(11, 40);
      GenerationRequest req = greedy("again", prompt, 4);
      int[] slots = KvAppendMetadata.decode(d.prepareReceive(req, 39).get(10, TimeUnit.SECONDS)
          .kvAppendMetadata());
      pModel.failNextStep = true;
      assertEquals(500, status(() -> faulty.remoteSend(req, 0, 39, slots, 1, shipper)
          .get(10, TimeUnit.SECONDS)));
      // the failed send no longer counts as running: a retry is served, not refused with 409
      faulty.remoteSend(req, 0, 39, slots, 1, shipper).get(10, TimeUnit.SECONDS);
      Collector c = new Collector();
      d.startGenerate(req.id(), 39, c);
      assertArrayEquals(ChainedHashModel.reference(prompt, 4), c.await().tokens(0));
    } finally {
      faulty.close();
    }
  }

  @Test
  void secondRequestReusesDsPrefixCache() throws Exception {
    int[] prompt = prompt(4, 80);
    chain(greedy("first", prompt, 3), -1);
    PrepareReceiveResult prep = d.prepareReceive(greedy("second", prompt, 3), -1).get();
    assertEquals(64, prep.prefixMatchedLength());
    d.release("second").get();
  }

  @Test
  void reservationsHoldEveryPageTheirRequestNeedsSoReceivedKvNeverDeadlocksAdmission() throws Exception {
    // D with 8 pages; a 64-token prompt with window [0, 63) needs 5 pages to decode (64 + 1 tokens).
    // Reserving only the window's 4 pages would let two reservations fill the cache, and both
    // start_generate'd requests would then wait forever for the page of their first token.
    Engine small = new Engine(new ChainedHashModel(4096), new ByteTokenizer(),
        new EngineOptions(8, 8, 64, 4096, true, Duration.ofSeconds(30)));
    small.start();
    try {
      InProcessKvShipper toSmall = new InProcessKvShipper(Map.of(1, small));
      GenerationRequest a = greedy("a", prompt(31, 64), 4);
      GenerationRequest b = greedy("b", prompt(32, 64), 4);
      PrepareReceiveResult prepA = small.prepareReceive(a, 63).get(10, TimeUnit.SECONDS);
      ExecutionException full = assertThrows(ExecutionException.class,
          () -> small.prepareReceive(b, 63).get(10, TimeUnit.SECONDS));
      assertEquals(503, ((ApiError) full.getCause()).status(), "no room for b's whole request yet");
      p.remoteSend(a, 0, 63, KvAppendMetadata.decode(prepA.kvAppendMetadata()), 1, toSmall)
          .get(10, TimeUnit.SECONDS);
      Collector first = new Collector();
      small.startGenerate("a", 63, first);
      assertArrayEquals(ChainedHashModel.reference(a.promptTokens(), 4), first.await().tokens(0));
      PrepareReceiveResult prepB = small.prepareReceive(b, 63).get(10, TimeUnit.SECONDS);
      p.remoteSend(b, 0, 63, KvAppendMetadata.decode(prepB.kvAppendMetadata()), 1, toSmall)
          .get(10, TimeUnit.SECONDS);
      Collector second = new Collector();
      small.startGenerate("b", 63, second);
      assertArrayEquals(ChainedHashModel.reference(b.promptTokens(), 4), second.await().tokens(0));
    } finally {
      small.close();
    }
  }

  @Test
  void startGenerateRefusesMissingOrIncompleteKv() throws Exception {
    Collector none = new Collector();
    d.startGenerate("nobody", 3, none);
    ExecutionException e = assertThrows(ExecutionException.class, () -> none.done.get(5, TimeUnit.SECONDS));
    assertEquals(404, ((ApiError) e.getCause()).status());

    GenerationRequest req = greedy("half", prompt(2, 40), 4);
    PrepareReceiveResult prep = d.prepareReceive(req, 39).get();
    Collector early = new Collector();
    d.startGenerate("half", 39, early);
    e = assertThrows(ExecutionException.class, () -> early.done.get(5, TimeUnit.SECONDS));
    assertEquals(409, ((ApiError) e.getCause()).status());

    // a transfer to a slot that is not reserved is refused whole
    int[] slots = KvAppendMetadata.decode(prep.kvAppendMetadata());
    int[] wrong = slots.clone();
    wrong[0] = 255 * 16;
    KvRows rows = new KvRows(wrong.length, 4, new float[2][wrong.length * 4], new float[2][wrong.length * 4]);
    assertThrows(KvTransferException.class, () -> d.accept("half", wrong, rows));

    p.remoteSend(req, 0, 39, slots, 1, shipper).get();
    Collector ok = new Collector();
    d.startGenerate("half", 39, ok);
    assertArrayEquals(ChainedHashModel.reference(prompt(2, 40), 4), ok.await().tokens(0));
  }

  @Test
  void reservationsExpireAndCanBeReleased() throws Exception {
    d.prepareReceive(greedy("ttl", prompt(1, 100), 4), -1).get();
    d.prepareReceive(greedy("rel", prompt(2, 100), 4), -1).get();
    for (int i = 0; i < 100 && d.stats().parked() < 2; i++) {
      Thread.sleep(5);
    }
    assertEquals(2, d.stats().parked());
    assertTrue(d.stats().kvPagesFree() <= 256 - 14);
    assertTrue(d.release("rel").get());
    assertEquals(256, waitFree(d, 256));
    assertEquals(1, d.counters().parkedExpired.get());
    assertThrows(KvTransferException.class, () -> d.accept("ttl", new int[] {0},
        new KvRows(1, 4, new float[2][4], new float[2][4])));
    // the ids are free again
    d.prepareReceive(greedy("ttl", prompt(1, 10), 4), -1).get();
  }

  /** A client that has prep_recv's or release's reply then reads gauges that already show it. */
  @Test
  void aReplyComesAfterTheGaugesShowIt() throws Exception {
    for (int k = 0; k < 20; k++) {
      String id = "gauged-" + k;
      int parkedAsReplied = d.prepareReceive(greedy(id, prompt(k, 40), 4), -1)
          .thenApply(r -> d.stats().parked()).get(10, TimeUnit.SECONDS);
      assertEquals(1, parkedAsReplied, "parked when prep_recv's reply was seen");
      int parkedAfterRelease = d.release(id).thenApply(r -> d.stats().parked())
          .get(10, TimeUnit.SECONDS);
      assertEquals(0, parkedAfterRelease, "parked when release's reply was seen");
    }
  }

  @Test
  void zeroMaxTokensFinishesAtOnceAndFreesTheId() throws Exception {
    GenerationRequest req = new GenerationRequest("zero", prompt(3, 20), 1, SamplingParams.greedy(0));
    PrepareReceiveResult prep = d.prepareReceive(req, -1).get();
    p.remoteSend(req, 0, 19, KvAppendMetadata.decode(prep.kvAppendMetadata()), 1, shipper).get();
    Collector c = new Collector();
    d.startGenerate("zero", 19, c);
    assertEquals(FinishReason.LENGTH, c.await().finish.get(0));
    Collector again = new Collector();
    d.submit(greedy("zero", prompt(3, 5), 2), again);
    again.await();
  }

  @Test
  void windowsAreValidated() {
    GenerationRequest req = greedy("w", prompt(1, 10), 4);
    assertEquals(400, status(() -> d.prepareReceive(req, 10).get()));
    assertEquals(400, status(() -> d.prepareReceive(req, -11).get()));
    assertEquals(400, status(() -> p.remoteSend(req, 5, 5, new int[0], 1, shipper).get()));
    assertEquals(400, status(() -> p.remoteSend(req, 0, 5, new int[4], 1, shipper).get()));
    assertEquals(400, status(() -> p.remoteSend(req, 0, 10, new int[10], 1, shipper).get()));
  }

  @Test
  void losingReceivedKvFinishesWithPreempt() throws Exception {
    try (Engine small = new Engine(dModel, new ByteTokenizer(),
        new EngineOptions(4, 5, 64, 4096, false, Duration.ofSeconds(30)))) {
      small.start();
      InProcessKvShipper toSmall = new InProcessKvShipper(Map.of(1, small));
      GenerationRequest received = greedy("recv", prompt(7, 30), 40);
      PrepareReceiveResult prep = small.prepareReceive(received, -1).get();
      p.remoteSend(received, 0, 29, KvAppendMetadata.decode(prep.kvAppendMetadata()), 1, toSmall).get();
      dModel.stepDelayMillis = 5;
      Collector local = new Collector();
      small.submit(greedy("local", prompt(8, 10), 30), local);
      while (local.outputs.isEmpty()) {
        Thread.sleep(2);
      }
      Collector c = new Collector();
      small.startGenerate("recv", 29, c);
      c.await();
      assertEquals(FinishReason.PREEMPT, c.finish.get(0));
      assertArrayEquals(ChainedHashModel.reference(prompt(8, 10), 30), local.await().tokens(0));
      dModel.stepDelayMillis = 0;
    }
  }

  private static int status(ThrowingRunnable r) {
    try {
      r.run();
      return 200;
    } catch (ApiError e) {
      return e.status();
    } catch (ExecutionException e) {
      return ((ApiError) e.getCause()).status();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static int waitFree(Engine e, int want) throws InterruptedException {
    // pages kept by the prefix cache count as free: nobody holds them
    for (int i = 0; i < 300 && e.stats().kvPagesFree() + e.stats().kvPagesCached() != want; i++) {
      Thread.sleep(10);
    }
    return e.stats().kvPagesFree() + e.stats().kvPagesCached();
  }
}
