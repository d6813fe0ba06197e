package dev.tandem.engine.sched;

import dev.tandem.engine.kv.PagedKvCache;
import dev.tandem.engine.model.ForwardChunk;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One forward pass of the planned batch on the engine thread: each sequence's planned tokens go
 * through the model together, then the sequences advance, the prefill/decode counters and the
 * throughput meter are updated and every sequence that reached its end gets its logits sampled.
 */
final class BatchStep {

  private final ForwardModel model;
  private final PagedKvCache kv;
  private final TokenEmitter emitter;
  private final EngineCounters counters;
  private final ThroughputMeter throughput;

  BatchStep(ForwardModel model, PagedKvCache kv, TokenEmitter emitter, EngineCounters counters,
      ThroughputMeter throughput) {
    this.model = model;
    this.kv = kv;
    this.emitter = emitter;
    this.counters = counters;
    this.throughput = throughput;
  }

  void run(List<Sequence> batch) {
    List<ForwardChunk> chunks = new ArrayList<>(batch.size());
    boolean anyPrefill = false;
    for (Sequence s : batch) {
      int from = s.numComputed;
      int to = from + s.planned;
      boolean wantLogits = to == s.length && s.request.kind == RequestState.Kind.GENERATE;
      chunks.add(new ForwardChunk(Arrays.copyOfRange(s.tokens, from, to), from, s.slots(0, to),
          wantLogits));
      anyPrefill |= from < s.prefillEnd;
    }
    long t0 = System.nanoTime();
    float[][] logits = model.forward(chunks, kv);
    long t1 = System.nanoTime();
    (anyPrefill ? counters.prefillNanos : counters.decodeNanos).addAndGet(t1 - t0);
    counters.steps.incrementAndGet();
    long computed = 0;
    for (int i = 0; i < batch.size(); i++) {
      Sequence s = batch.get(i);
      int from = s.numComputed;
      s.numComputed += s.planned;
      computed += s.planned;
      int prefill = Math.max(0, Math.min(s.numComputed, s.prefillEnd) - from);
      int decode = s.planned - prefill;
      s.request.prefillTokens += prefill;
      s.request.decodeTokens += decode;
      counters.prefillTokens.addAndGet(prefill);
      counters.decodeTokens.addAndGet(decode);
      if (logits[i] != null && s.request.kind == RequestState.Kind.GENERATE && !s.finished()) {
        emitter.onLogits(s, logits[i]);
      }
    }
    throughput.record(t1, computed);
  }
}
