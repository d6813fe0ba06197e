package dev.tandem.engine.sched;

import dev.tandem.api.ApiError;
import dev.tandem.api.SamplingControls;
import dev.tandem.api.PromptLimits;
import dev.tandem.kv.KvReceiveTarget;
import dev.tandem.kv.KvRows;
import dev.tandem.kv.KvShipper;
import dev.tandem.kv.KvTransferException;
import dev.tandem.engine.kv.PagedKvCache;
import dev.tandem.engine.kv.RadixPrefixCache;
import dev.tandem.engine.model.GenerationConfig;
import dev.tandem.engine.model.LlamaConfig;
import dev.tandem.tokenizer.TextTokenizer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The builtin engine: one dedicated thread runs continuous batching over the model; every public
 * method is thread-safe and returns at once (work is handed to that thread). Outputs reach
 * {@link GenerationListener}s on the engine thread. It is also the KV receive target of the
 * MicroServing flow: {@link #prepareReceive}, {@link #accept}, {@link #startGenerate} on the
 * decode side, {@link #remoteSend} on the prefill side.
 */
public final class Engine implements KvReceiveTarget, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

  private final ForwardModel model;
  private final EngineOptions options;
  private final LlamaConfig config;
  private final GenerationConfig generation;
  private final PromptLimits limits;
  private final PagedKvCache kv;
  private final BatchScheduler scheduler;
  private final TokenEmitter emitter;
  private final KvReceiveSide receiving;
  private final KvSendSide sending;
  private final EngineCounters counters = new EngineCounters();
  private final ThroughputMeter throughput = new ThroughputMeter(10_000_000_000L);
  private final BatchStep batchStep;
  private final LinkedBlockingQueue<Runnable> commands = new LinkedBlockingQueue<>();
  /** Ids of requests in flight (waiting, running or parked): a second one with the same id is refused. */
  private final ConcurrentHashMap<String, RequestState> active = new ConcurrentHashMap<>();
  private final Thread thread;
  private final EngineGauges gauges;
  private volatile boolean closed;

  public Engine(ForwardModel model, TextTokenizer tokenizer, EngineOptions options) {
    this(model, tokenizer, options, GenerationConfig.NONE);
  }

  /**
   * @param generation the model's generation_config.json: a sequence also ends on its eos ids, and
   *     servers take its sampling defaults ({@link #generationConfig()})
   */
  public Engine(ForwardModel model, TextTokenizer tokenizer, EngineOptions options, GenerationConfig generation) {
    this.model = model;
    this.generation = generation;
    this.options = options;
    this.config = model.config();
    this.limits = new PromptLimits(config.vocabSize(), options.maxSequenceLength());
    this.kv = new PagedKvCache(config.numLayers(), config.kvDim(), options.numKvPages());
    RadixPrefixCache cache = options.prefixCache() ? new RadixPrefixCache(kv.pages()) : null;
    this.scheduler = new BatchScheduler(kv, cache, options, counters, this::onLostKv);
    this.emitter = new TokenEmitter(scheduler, tokenizer, counters, config.vocabSize(),
        generation.stopTokenIds(config), options.maxSequenceLength(), this::onDone);
    this.receiving = new KvReceiveSide(kv, scheduler, emitter, counters, options, this::onDone);
    this.sending = new KvSendSide(kv, scheduler, emitter, counters);
    this.batchStep = new BatchStep(model, kv, emitter, counters, throughput);
    this.gauges = new EngineGauges(scheduler, receiving, kv);
    this.thread = new Thread(this::loop, "tandem-engine");
    thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  public LlamaConfig modelConfig() {
    return config;
  }

  /** The model's generation_config.json (eos ids, sampling defaults). */
  public GenerationConfig generationConfig() {
    return generation;
  }

  /**
   * Checks a tokenized prompt against the model with the router's rules ({@link PromptLimits}): at
   * least one token, ids in the vocabulary, room in the context window for the prompt and
   * {@code maxTokens} (null = no bound). Throws a 400 ApiError otherwise.
   */
  public void checkPrompt(int[] ids, Integer maxTokens) {
    limits.check(ids, maxTokens);
  }

  /** Every token of a {@code logit_bias} must be in the vocabulary (400 otherwise). */
  private void checkSampling(SamplingParams sampling) {
    SamplingControls.checkBiasTokens(sampling.controls().biasIds(), limits.vocabSize());
  }

  /** Queues a request. Throws 409 if a request with this id is in flight, 400 if it does not fit. */
  public void submit(GenerationRequest request, GenerationListener listener) {
    checkPrompt(request.promptTokens(), request.sampling().maxTokens());
    checkSampling(request.sampling());
    RequestState r = new RequestState(request.id(), RequestState.Kind.GENERATE, request, listener,
        request.promptTokens().length, System.nanoTime());
    claimId(r);
    counters.requestsSubmitted.incrementAndGet();
    counters.promptTokens.addAndGet(r.promptLength);
    post(() -> {
      Sequence s = emitter.newChoice(r, 0, request.promptTokens(), r.promptLength);
      r.pendingForks = request.n() - 1;
      Integer maxTokens = request.sampling().maxTokens();
      if (maxTokens != null && maxTokens == 0) {
        emitter.finishAll(r, FinishReason.LENGTH);
        return;
      }
      scheduler.enqueue(s);
    }, r);
  }

  /** Stops a request wherever it is (queued, running or parked) and frees its KV. */
  public void abort(String requestId) {
    post(() -> {
      RequestState r = active.get(requestId);
      if (r != null && !r.done) {
        drop(r);
        counters.requestsAborted.incrementAndGet();
        LOG.debug("aborted request {}", requestId);
      }
      receiving.release(requestId);
    }, null);
  }

  /**
   * Back-pressure from a slow client: while {@code hold} is true the request is not scheduled (its
   * KV and batch slot stay), so its output stops growing in memory; false resumes it. Outputs
   * are batch-invariant, so holding a request changes no token of it or of any other. Only the
   * request that {@code listener} listens to is affected, never a later one with the same id.
   */
  public void holdOutput(String requestId, GenerationListener listener, boolean hold) {
    post(() -> {
      RequestState r = active.get(requestId);
      if (r != null && !r.done && r.listener == listener) {
        r.outputHeld = hold;
      }
    }, null);
  }

  /** MicroServing prep_recv: reserve KV for the prompt window [.., end) and park the request. */
  public CompletableFuture<PrepareReceiveResult> prepareReceive(GenerationRequest request, int end) {
    checkPrompt(request.promptTokens(), request.sampling().maxTokens());
    checkSampling(request.sampling());
    RequestState placeholder = new RequestState(request.id(), RequestState.Kind.GENERATE, request,
        null, request.promptTokens().length, System.nanoTime());
    claimId(placeholder);
    CompletableFuture<PrepareReceiveResult> result = new CompletableFuture<>();
    CompletableFuture<PrepareReceiveResult> parked = gauges.publishedBefore(result, thread);
    post(() -> {
      try {
        receiving.prepareReceive(request, end, parked, placeholder);
      } catch (RuntimeException e) {
        active.remove(request.id(), placeholder);
        parked.completeExceptionally(e);
      }
    }, null);
    return result;
  }

  /** MicroServing start_generate: resume a parked request, prefilling [begin, len) here. */
  public void startGenerate(String requestId, int begin, GenerationListener listener) {
    post(() -> {
      RequestState r = receiving.startGenerate(requestId, begin, listener);
      if (r.done) {
        active.remove(requestId); // finished at once (max_tokens 0): drop the prep_recv placeholder
      } else {
        active.put(requestId, r);
      }
    }, null, listener);
  }

  /**
   * MicroServing remote_send: compute the KV of {@code prompt[0, end)} and ship positions
   * [begin, end) to {@code destSlots} of PE {@code recvRank}; completes after the receiver's ack.
   */
  public CompletableFuture<Void> remoteSend(GenerationRequest request, int begin, int end,
      int[] destSlots, int recvRank, KvShipper shipper) {
    CompletableFuture<Void> result = new CompletableFuture<>();
    try {
      KvSendSide.checkSendWindow(request.promptTokens().length, begin, end, destSlots.length);
      checkPrompt(request.promptTokens(), null);
    } catch (ApiError e) {
      result.completeExceptionally(e);
      return result;
    }
    post(() -> {
      try {
        sending.remoteSend(request, begin, end, destSlots, recvRank, shipper, result);
      } catch (RuntimeException e) {
        result.completeExceptionally(e);
      }
    }, null);
    return result;
  }

  /** Frees a parked reservation, or aborts the request if it already runs. True if it existed. */
  public CompletableFuture<Boolean> release(String requestId) {
    CompletableFuture<Boolean> result = new CompletableFuture<>();
    post(() -> {
      boolean parked = receiving.release(requestId);
      RequestState r = active.get(requestId);
      boolean running = r != null && !r.done;
      if (running) {
        abort(requestId);
      }
      gauges.publish(); // before the reply: its caller may read the gauges next
      result.complete(parked || running);
    }, null);
    return result;
  }

  @Override
  public void accept(String requestId, int[] slots, KvRows rows) throws KvTransferException {
    receiving.accept(requestId, slots, rows);
  }

  @Override
  public void refused(String requestId, String reason) {
    counters.kvTransfersRejected.incrementAndGet();
  }

  public EngineStats stats() {
    return gauges.stats(throughput.tokensPerSecond(System.nanoTime()), counters);
  }

  public EngineCounters counters() {
    return counters;
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    ApiError gone = ApiError.unavailable("engine_stopped", "the engine is shutting down");
    for (RequestState r : active.values()) {
      if (r.listener != null && !r.done) {
        r.listener.onFailure(gone);
      }
    }
    active.clear();
  }

  private void claimId(RequestState r) {
    if (active.putIfAbsent(r.id, r) != null) {
      throw ApiError.conflict("user", "A request with id \"" + r.id
          + "\" is already in flight on this engine (the \"user\" field is the request id)");
    }
  }

  private void onDone(RequestState r) {
    active.remove(r.id, r);
  }

  /** Ends a request that did not finish: its sequences leave the scheduler, its KV is freed. */
  private void drop(RequestState r) {
    r.done = true;
    for (Sequence s : r.choices) {
      if (s != null) {
        scheduler.remove(s);
      }
    }
    scheduler.releaseForkPages(r);
    sending.forget(r);
    onDone(r);
  }

  private void onLostKv(Sequence s) {
    LOG.info("request {} lost its received KV to preemption: finishing with \"preempt\"", s.request.id);
    emitter.finish(s, FinishReason.PREEMPT);
  }

  private void post(Runnable command, RequestState owner) {
    post(command, owner, owner == null ? null : owner.listener);
  }

  /** Runs {@code command} on the engine thread; a failure goes to the listener and frees the id. */
  private void post(Runnable command, RequestState owner, GenerationListener listener) {
    if (closed) {
      if (owner != null) {
        active.remove(owner.id, owner);
      }
      throw ApiError.unavailable("engine_stopped", "the engine is shutting down");
    }
    commands.add(() -> {
      try {
        command.run();
      } catch (RuntimeException e) {
        if (owner != null) {
          active.remove(owner.id, owner);
        }
        if (listener != null) {
          listener.onFailure(e);
        } else if (!(e instanceof ApiError)) {
          LOG.error("engine command failed", e);
        }
      }
    });
  }

  private void loop() {
    LOG.info("engine thread started: {} KV pages of {} tokens, max {} sequences, prefill chunk {}",
        kv.numPages(), PagedKvCache.PAGE_SIZE, options.maxNumSequence(), options.prefillChunkSize());
    while (!closed) {
      try {
        runCommands(false);
        receiving.expire(System.nanoTime());
        scheduler.admit();
        sending.completeReadySends();
        List<Sequence> batch = scheduler.plan();
        // gauges first: a client that sees an output must not then read older gauges
        if (batch.isEmpty()) {
          gauges.publish();
          emitter.deliver();
          runCommands(true);
          continue;
        }
        batchStep.run(batch);
        gauges.publish();
        emitter.deliver();
      } catch (InterruptedException e) {
        if (closed) {
          break;
        }
      } catch (RuntimeException | Error e) {
        LOG.error("engine step failed; failing the requests of this batch", e);
        failRunning(e);
      }
    }
    LOG.info("engine thread stopped");
  }

  private void runCommands(boolean block) throws InterruptedException {
    Runnable first;
    if (block) {
      long waitNanos = Math.min(receiving.nanosUntilNextExpiry(System.nanoTime()), 1_000_000_000L);
      first = commands.poll(Math.max(waitNanos, 1_000_000L), TimeUnit.NANOSECONDS);
    } else {
      first = commands.poll();
    }
    for (Runnable r = first; r != null; r = commands.poll()) {
      r.run();
    }
    if (first != null) {
      gauges.publish();
    }
  }

  private void failRunning(Throwable cause) {
    ApiError error = ApiError.internal("engine step failed: " + cause);
    for (Sequence s : new ArrayList<>(scheduler.running)) {
      RequestState r = s.request;
      if (!r.done) {
        drop(r);
        counters.requestsFailed.incrementAndGet();
        if (r.listener != null) {
          r.listener.onFailure(error);
        }
        if (r.sendResult != null) {
          r.sendResult.completeExceptionally(error);
        }
      }
    }
  }
}
