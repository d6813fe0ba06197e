package dev.tandem.engine.server;

import static dev.tandem.engine.server.MicroServingCalls.body;
import static dev.tandem.engine.server.MicroServingCalls.comparable;
import static dev.tandem.engine.server.MicroServingCalls.metric;
import static dev.tandem.engine.server.MicroServingCalls.prompt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.world.WorldRoot;
import dev.tandem.testing.FreePorts;
import dev.tandem.testing.TinyModel;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 3, "what must be shown" 1 and 2, across three engine JVMs: P (PE 0) and D (PE 1, radix
 * prefix cache on) joined in one world whose root runs in this JVM, and R, a separate colocated
 * engine (no world, prefix cache off) as the reference. For 26 prompts of 1 to 1,024 tokens, windows
 * ending at -1 and at balance points 0.1, 0.3 and 0.5, greedy and seeded sampling, streamed and
 * not, with and without a prefix hit on D (one whose hit covers the whole window, so P is never
 * called), the chain answers exactly what R's /v1/completions answers: same token ids, text,
 * logprobs and top logprobs, bit for bit. D's usage.extra and /metrics show it computed only the
 * {@code len - end} positions the window leaves it and received exactly {@code end - matched}.
 */
class MicroServingDifferentialIT {
  static final int MAX_TOKENS = 8;
  /** pd_balance_factor per window; 0 means end = -1 (the router's rule). */
  static final double[] FACTORS = {0.0, 0.1, 0.3, 0.5};
  static final int[] LENGTHS = {1, 2, 5, 16, 17, 31, 48, 64, 99, 128, 200, 256, 333, 480, 513, 640,
      777, 900, 1000, 1024};

  static WorldRoot root;
  static EngineProcess p;
  static EngineProcess d;
  static EngineProcess ref;
  static ExecutorService pool;

  @BeforeAll
  static void start() throws Exception {
    Path model = TinyModel.shared();
    root = WorldRoot.start("127.0.0.1", 2);
    String[] common = {"--device", "cpu:0", "--enable-debug", "--mode", "server",
        "--overrides", "max_num_sequence=8;max_total_seq_length=20480"};
    int pp = FreePorts.one();
    int dp = FreePorts.one();
    int rp = FreePorts.one();
    p = EngineProcess.launch(EngineProcess.serveCommand(model, pp, common),
        Map.of("MLC_NVSHMEM_INIT_CONFIG_JSON_STR", MicroServingCalls.worldEnv(root, 0)), pp);
    d = EngineProcess.launch(EngineProcess.serveCommand(model, dp, common),
        Map.of("MLC_NVSHMEM_INIT_CONFIG_JSON_STR", MicroServingCalls.worldEnv(root, 1)), dp);
    ref = EngineProcess.launch(EngineProcess.serveCommand(model, rp, "--device", "cpu:0",
        "--enable-debug", "--mode", "server", "--prefix-cache-mode", "disable",
        "--overrides", "max_num_sequence=8;max_total_seq_length=8192"), Map.of(), rp);
    p.awaitReady(Duration.ofSeconds(120));
    d.awaitReady(Duration.ofSeconds(120));
    ref.awaitReady(Duration.ofSeconds(120));
    pool = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stop() {
    if (pool != null) {
      pool.shutdownNow();
    }
    for (EngineProcess e : new EngineProcess[] {p, d, ref}) {
      if (e != null) {
        e.close();
      }
    }
    if (root != null) {
      root.close();
    }
  }

  /** One request: its prompt, window, sampling and streaming, and the prefix D should already hold. */
  record Case(String name, JsonArray prompt, int end, boolean sample, boolean stream,
      int expectedMatched) {
    static Case of(String name, JsonArray prompt, double factor, boolean sample, boolean stream,
        int cachedPrefix) {
      int len = prompt.size();
      int end = factor == 0.0 ? -1 : (int) ((1 - factor) * len);
      int endN = end < 0 ? len + end : end;
      int matched = Math.min(cachedPrefix, endN) / 16 * 16; // the cache matches whole 16-token pages
      return new Case(name + " len " + len + " f " + factor + (sample ? " sampled" : " greedy")
          + (stream ? " streamed" : ""), prompt, end, sample, stream, matched);
    }

    int len() {
      return prompt.size();
    }
  }

  /** What the chain did for one case, after checking it against the reference. */
  record Outcome(int len, int end, int matched, boolean sent) {}

  @Test
  void chainAnswersBitIdenticalToColocatedAndDComputesOnlyItsShare() throws Exception {
    long t0 = System.nanoTime();
    double dReceived0 = metric(d, "kv_received_tokens_total");
    double dPrefill0 = metric(d, "prefill_tokens_total");
    double dRejected0 = metric(d, "kv_transfers_rejected_total");
    double pSends0 = metric(p, "remote_send_total");
    double pSent0 = metric(p, "kv_sent_tokens_total");

    // Phase 1: fresh prompts, nothing of them cached on D. Window and (sampling, streaming) rotate
    // out of step, so every window meets every combination.
    List<Case> fresh = new ArrayList<>();
    List<JsonArray> prompts = new ArrayList<>();
    for (int i = 0; i < LENGTHS.length; i++) {
      JsonArray prompt = prompt(LENGTHS[i], 1000 + i);
      prompts.add(prompt);
      fresh.add(Case.of("fresh", prompt, FACTORS[(i + i / 4) % 4], i % 2 == 1, (i / 2) % 2 == 1, 0));
    }
    List<Outcome> outcomes = new ArrayList<>(runAll(fresh));

    // Phase 2: prompts whose prefix D cached in phase 1 (the same prompt again, or a phase-1
    // prefix followed by new tokens), so prep_recv reuses D's pages and P ships only the rest.
    List<Case> hits = List.of(
        Case.of("again", prompts.get(12), 0.0, false, true, 333),
        Case.of("again", prompts.get(18), 0.3, true, false, 1000),
        Case.of("extended", concat(prompts.get(15).getList().subList(0, 200), prompt(300, 77)), 0.1,
            true, true, 200),
        Case.of("window-covered", prompts.get(15), 0.5, false, false, 640),
        Case.of("extended", concat(prompts.get(8).getList(), prompt(1, 78)), 0.0, true, false, 99),
        Case.of("extended", concat(prompts.get(4).getList(), prompt(23, 79)), 0.5, false, true, 17));
    outcomes.addAll(runAll(hits));
    long wallMs = (System.nanoTime() - t0) / 1_000_000;

    long received = 0;
    long computed = 0;
    long sends = 0;
    for (Outcome o : outcomes) {
      received += o.end() - o.matched();
      computed += o.len() - o.end();
      sends += o.sent() ? 1 : 0;
    }
    assertTrue(outcomes.stream().anyMatch(o -> !o.sent() && o.end() > 0),
        "some window was covered by D's cache, so P was not called");
    // D's counters: exactly the windows arrived, and D computed nothing but what they left it
    assertEquals(received, metric(d, "kv_received_tokens_total") - dReceived0);
    assertEquals(computed, metric(d, "prefill_tokens_total") - dPrefill0);
    assertEquals(dRejected0, metric(d, "kv_transfers_rejected_total"));
    assertEquals(0, metric(d, "parked"), "every reservation was claimed");
    assertEquals(sends, metric(p, "remote_send_total") - pSends0);
    assertEquals(received, metric(p, "kv_sent_tokens_total") - pSent0);
    System.out.printf("MicroServingDifferentialIT: %d chains (%d remote sends, %d KV tokens moved,"
        + " D prefilled %d) in %d ms%n", outcomes.size(), sends, received, computed, wallMs);
  }

  private static JsonArray concat(List<?> head, JsonArray tail) {
    JsonArray all = new JsonArray(new ArrayList<>(head));
    all.addAll(tail);
    return all;
  }

  /** Runs every case (a few at a time: batching must not change an answer either). */
  private static List<Outcome> runAll(List<Case> cases) throws Exception {
    List<Future<Outcome>> futures = new ArrayList<>();
    for (int i = 0; i < cases.size(); i++) {
      Case c = cases.get(i);
      long seed = 500 + i;
      String user = "cmpl-diff-" + System.nanoTime() + "-" + i;
      futures.add(pool.submit(() -> run(c, user, seed)));
    }
    List<Outcome> outcomes = new ArrayList<>();
    for (Future<Outcome> f : futures) {
      outcomes.add(f.get(240, TimeUnit.SECONDS));
    }
    return outcomes;
  }

  private static Outcome run(Case c, String user, long seed) throws Exception {
    JsonObject colocated = MicroServingCalls.read(ref.http().post("/v1/completions",
        body(c.prompt(), null, MAX_TOKENS, c.sample(), seed, false)), false);
    MicroServingCalls.Chain chain = MicroServingCalls.chain(p, d, 1,
        body(c.prompt(), user, MAX_TOKENS, c.sample(), seed, c.stream()), c.end());
    JsonObject a = chain.answer();
    String what = c.name() + " (end " + chain.end() + ", matched " + chain.matched() + ")";
    assertEquals(MAX_TOKENS, a.getJsonArray("ids").size(), what);
    assertEquals(MAX_TOKENS, a.getJsonArray("token_logprobs").size(), what);
    assertEquals(comparable(colocated), comparable(a), what);
    assertEquals(c.expectedMatched(), chain.matched(), what);
    JsonObject extra = a.getJsonObject("extra");
    assertEquals(c.len(), extra.getInteger("prompt_tokens"), what);
    assertEquals(chain.matched(), extra.getInteger("prefix_matched_length"), what);
    assertEquals(chain.end() - chain.matched(), extra.getInteger("kv_received_tokens"), what);
    assertEquals(c.len() - chain.end(), extra.getInteger("prefill_tokens"), what);
    assertEquals(c.len(), colocated.getJsonObject("extra").getInteger("prefill_tokens"), what);
    return new Outcome(c.len(), chain.end(), chain.matched(), chain.sent());
  }
}
