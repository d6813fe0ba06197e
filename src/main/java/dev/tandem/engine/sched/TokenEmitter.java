package dev.tandem.engine.sched;

import dev.tandem.tokenizer.TextTokenizer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a step's logits into tokens and client output: samples each choice (forking the other
 * choices of a request off choice 0 when its prompt is done), computes logprobs, streams text,
 * decides when a choice finishes, and hands each request one output per step. Engine thread only.
 */
final class TokenEmitter {
  private static final Logger LOG = LoggerFactory.getLogger(TokenEmitter.class);

  private final BatchScheduler scheduler;
  private final TextTokenizer tokenizer;
  private final TokenTexts tokenTexts;
  private final EngineCounters counters;
  /** Tokens that end a sequence (config.json's and generation_config.json's eos ids). */
  private final int[] stopTokenIds;
  private final int maxSequenceLength;
  /** Called once a request is done (finished, preempted out, aborted), to free its id. */
  private final Consumer<RequestState> onDone;
  private final Map<RequestState, List<ChoiceDelta>> outputs = new LinkedHashMap<>();

  TokenEmitter(BatchScheduler scheduler, TextTokenizer tokenizer, EngineCounters counters,
      int vocabSize, int[] stopTokenIds, int maxSequenceLength, Consumer<RequestState> onDone) {
    this.scheduler = scheduler;
    this.tokenizer = tokenizer;
    this.tokenTexts = new TokenTexts(tokenizer, vocabSize);
    this.counters = counters;
    this.stopTokenIds = stopTokenIds.clone();
    this.maxSequenceLength = maxSequenceLength;
    this.onDone = onDone;
  }

  /** A fresh choice of {@code r} with its own random stream and text streamer. */
  Sequence newChoice(RequestState r, int index, int[] tokens, int length) {
    SamplingParams p = r.sampling();
    SplittableRandom rng = new SplittableRandom(p.seed() + index);
    OutputStreamer streamer = r.kind == RequestState.Kind.SEND ? null
        : new OutputStreamer(tokenizer, tokens, r.promptLength, p.stop());
    Sequence s = new Sequence(r, index, tokens, length, rng, streamer);
    r.choices[index] = s;
    return s;
  }

  /** Logits of a choice's last token are in: sample its next token (and fork its siblings). */
  void onLogits(Sequence s, float[] logits) {
    RequestState r = s.request;
    if (s.index == 0 && r.pendingForks > 0) {
      int forks = r.pendingForks;
      r.pendingForks = 0;
      List<Sequence> children = new ArrayList<>();
      for (int i = 1; i <= forks; i++) {
        Sequence child = newChoice(r, i, s.tokens, s.length);
        scheduler.fork(s, child, i - 1);
        children.add(child);
      }
      r.forkPages = new int[0];
      sampleNext(s, logits);
      for (Sequence child : children) {
        sampleNext(child, logits);
      }
      return;
    }
    sampleNext(s, logits);
  }

  private void sampleNext(Sequence s, float[] logits) {
    RequestState r = s.request;
    SamplingParams p = r.sampling();
    float[] row = p.controls().apply(logits, s.tokens, r.promptLength, s.length,
        p.temperature() == 0);
    int token = Sampler.sample(row, p.temperature(), p.topP(), s.rng);
    if (p.logprobs() != null) {
      s.pendingLogprobs.add(logprob(logits, token, p.logprobs()));
    }
    s.append(token);
    s.pendingTokens.add(token);
    if (r.firstTokenNanos == 0) {
      r.firstTokenNanos = System.nanoTime();
    }
    counters.completionTokens.incrementAndGet();
    s.pendingText.append(s.streamer.push(token));

    FinishReason reason = null;
    if (s.streamer.stopped()) {
      reason = FinishReason.STOP;
    } else if (!p.ignoreEos() && isStopToken(token)) {
      reason = FinishReason.STOP;
    } else if (p.maxTokens() != null && s.generated() >= p.maxTokens()) {
      reason = FinishReason.LENGTH;
    } else if (s.length >= maxSequenceLength) {
      reason = FinishReason.LENGTH;
    }
    if (reason != null) {
      s.pendingText.append(s.streamer.flush());
      finish(s, reason);
    } else if (s.pendingText.length() > 0) {
      emit(s);
    }
  }

  private boolean isStopToken(int token) {
    for (int id : stopTokenIds) {
      if (id == token) {
        return true;
      }
    }
    return false;
  }

  private TokenLogprob logprob(float[] logits, int token, int k) {
    Sampler.Logprobs lp = Sampler.logprobs(logits, token, k);
    List<TokenLogprob.Alternative> top = new ArrayList<>(lp.topIds().length);
    for (int i = 0; i < lp.topIds().length; i++) {
      int id = lp.topIds()[i];
      top.add(new TokenLogprob.Alternative(id, tokenTexts.of(id), lp.topLogprobs()[i]));
    }
    return new TokenLogprob(token, tokenTexts.of(token), lp.logprob(), top);
  }

  /** Ends a choice: its last delta carries the reason; the request's last choice brings usage. */
  void finish(Sequence s, FinishReason reason) {
    if (s.finish != null) {
      return;
    }
    s.finish = reason;
    scheduler.remove(s);
    emit(s);
    RequestState r = s.request;
    r.unfinished--;
    if (r.unfinished == 0 && !r.done) {
      r.done = true;
      counters.requestsFinished.incrementAndGet();
      onDone.accept(r);
    }
  }

  /** Ends every unfinished choice of {@code r} with {@code reason} (and no further text). */
  void finishAll(RequestState r, FinishReason reason) {
    for (Sequence s : r.choices) {
      if (s != null && s.finish == null) {
        s.pendingText.setLength(0);
        finish(s, reason);
      }
    }
    // choices never forked (request ended before its prompt was done) finish too
    for (int i = 0; i < r.choices.length; i++) {
      if (r.choices[i] == null) {
        Sequence ghost = newChoice(r, i, r.request.promptTokens(), r.promptLength);
        ghost.finish = reason;
        emit(ghost);
        r.unfinished--;
      }
    }
    r.pendingForks = 0;
    if (r.unfinished <= 0 && !r.done) {
      r.done = true;
      counters.requestsFinished.incrementAndGet();
      onDone.accept(r);
    }
  }

  private void emit(Sequence s) {
    int[] ids = s.pendingTokens.stream().mapToInt(Integer::intValue).toArray();
    List<TokenLogprob> lps = s.request.sampling().logprobs() == null ? null
        : List.copyOf(s.pendingLogprobs);
    ChoiceDelta delta = new ChoiceDelta(s.index, s.pendingText.toString(), ids, lps, s.finish);
    s.pendingText.setLength(0);
    s.pendingTokens.clear();
    s.pendingLogprobs.clear();
    outputs.computeIfAbsent(s.request, k -> new ArrayList<>()).add(delta);
  }

  /** Hands each request this step's deltas (and usage when it is done). */
  void deliver() {
    if (outputs.isEmpty()) {
      return;
    }
    List<Map.Entry<RequestState, List<ChoiceDelta>>> entries = new ArrayList<>(outputs.entrySet());
    outputs.clear();
    for (Map.Entry<RequestState, List<ChoiceDelta>> e : entries) {
      RequestState r = e.getKey();
      List<ChoiceDelta> deltas = e.getValue();
      deltas.sort((a, b) -> Integer.compare(a.index(), b.index()));
      GenerationOutput out = new GenerationOutput(r.id, List.copyOf(deltas), r.done ? usage(r) : null);
      try {
        r.listener.onOutput(out);
      } catch (RuntimeException ex) {
        LOG.warn("output listener of request {} failed: {}", r.id, ex.toString());
      }
    }
  }

  static RequestUsage usage(RequestState r) {
    long now = System.nanoTime();
    int completion = 0;
    List<int[]> ids = new ArrayList<>();
    for (Sequence s : r.choices) {
      int[] out = s == null ? new int[0] : s.outputTokens();
      completion += out.length;
      ids.add(out);
    }
    double ttft = r.firstTokenNanos == 0 ? 0 : (r.firstTokenNanos - r.arrivalNanos) / 1e9;
    return new RequestUsage(r.promptLength, completion, r.prefillTokens, r.decodeTokens,
        Math.max(r.prefixMatched, 0), r.kvReceivedTokens, r.preemptions, ttft,
        (now - r.arrivalNanos) / 1e9, ids);
  }
}
