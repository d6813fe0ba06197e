package dev.tandem.engine.sched;

import dev.tandem.api.ApiError;
import dev.tandem.kv.KvAppendMetadata;
import dev.tandem.engine.kv.PagedKvCache;
import dev.tandem.engine.model.KvStore;
import dev.tandem.kv.KvRows;
import dev.tandem.kv.KvTransferException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decode engine's side of MicroServing: parked prep_recv reservations (with a time-to-live
 * and an explicit release, which MLC lacks), KV arriving into them from a prefill engine, and
 * their resumption by start_generate. The sending side is {@link KvSendSide}. Engine thread,
 * except {@link #accept} which any transport thread may call.
 */
final class KvReceiveSide {
  private static final Logger LOG = LoggerFactory.getLogger(KvReceiveSide.class);

  private final PagedKvCache kv;
  private final BatchScheduler scheduler;
  private final TokenEmitter emitter;
  private final EngineCounters counters;
  private final EngineOptions options;
  private final Consumer<RequestState> freeId;
  private final Map<String, ParkedRequest> parked = new ConcurrentHashMap<>();
  private final Map<String, RequestState> placeholders = new ConcurrentHashMap<>();

  KvReceiveSide(PagedKvCache kv, BatchScheduler scheduler, TokenEmitter emitter,
      EngineCounters counters, EngineOptions options, Consumer<RequestState> freeId) {
    this.kv = kv;
    this.scheduler = scheduler;
    this.emitter = emitter;
    this.counters = counters;
    this.options = options;
    this.freeId = freeId;
  }

  int parkedCount() {
    return parked.size();
  }

  /**
   * Reserves KV for the whole request, reusing what the prefix cache holds of the window
   * {@code [.., end)}, and parks it until start_generate; 503 when the cache is full.
   */
  void prepareReceive(GenerationRequest request, int end, CompletableFuture<PrepareReceiveResult> result,
      RequestState placeholder) {
    int len = request.promptTokens().length;
    int endN = PromptWindow.normalise(end, len);
    if (endN < 0 || endN >= len) {
      throw ApiError.invalid("end", "\"end\" " + end + " must satisfy 0 <= end < prompt length " + len
          + " after normalisation (negative counts from the end; the last token is computed here)");
    }
    int[] matched = scheduler.cache() == null ? new int[0]
        : scheduler.cache().match(request.promptTokens(), endN);
    // Reserve every page the request needs to start decoding (the whole prompt plus the first
    // generated token), not just the window: otherwise start_generate'd requests holding received
    // KV can fill the cache and wait forever for the page of their first token, with none running.
    int need = BatchScheduler.pagesFor(len + 1) - matched.length;
    if (!scheduler.reserve(need)) {
      for (int p : matched) {
        kv.pages().release(p);
      }
      throw ApiError.unavailable("kv_cache_full", "Not enough free KV cache to hold a " + len
          + "-token prompt right now (" + kv.pages().numFree() + " of " + kv.numPages()
          + " pages free); retry later or on another engine");
    }
    int[] pages = Arrays.copyOf(matched, matched.length + need);
    for (int i = matched.length; i < pages.length; i++) {
      pages[i] = kv.pages().allocate();
    }
    int matchedTokens = matched.length * KvStore.PAGE_SIZE;
    long deadline = System.nanoTime() + options.parkedTtl().toNanos();
    ParkedRequest p = new ParkedRequest(request, matchedTokens, endN, pages, deadline);
    parked.put(request.id(), p);
    placeholders.put(request.id(), placeholder);
    counters.prepareReceives.incrementAndGet();
    counters.prefixCacheHitTokens.addAndGet(matchedTokens);
    result.complete(new PrepareReceiveResult(KvAppendMetadata.encode(p.windowSlots()),
        matchedTokens, len));
  }

  /** Any thread: writes received rows if every slot is reserved for this parked request. */
  void accept(String requestId, int[] slots, KvRows rows) throws KvTransferException {
    ParkedRequest p = parked.get(requestId);
    if (p == null) {
      counters.kvTransfersRejected.incrementAndGet();
      throw new KvTransferException("request \"" + requestId + "\" is not parked for KV on this"
          + " engine (never prepared, expired, released or already started)");
    }
    synchronized (p) {
      if (p.state() != ParkedRequest.State.WAITING_FOR_KV) {
        counters.kvTransfersRejected.incrementAndGet();
        throw new KvTransferException("request \"" + requestId + "\" no longer waits for KV ("
            + p.state().name().toLowerCase() + ")");
      }
      String bad = kv.shapeMismatch(slots, rows);
      if (bad != null) {
        counters.kvTransfersRejected.incrementAndGet();
        throw new KvTransferException("KV for request \"" + requestId + "\" rejected: " + bad);
      }
      int[] index = new int[slots.length];
      for (int i = 0; i < slots.length; i++) {
        index[i] = p.windowIndexOf(slots[i]);
        if (index[i] < 0) {
          counters.kvTransfersRejected.incrementAndGet();
          throw new KvTransferException("slot " + slots[i] + " is not reserved for request \""
              + requestId + "\" (its window is positions [" + p.matched + ", " + p.end + "))");
        }
      }
      kv.writeRows(slots, rows);
      for (int i : index) {
        p.markReceived(i);
      }
    }
    counters.kvReceivedTokens.addAndGet(slots.length);
  }

  /** Resumes a parked request as a running one (already done when max_tokens is 0). */
  RequestState startGenerate(String id, int begin, GenerationListener listener) {
    ParkedRequest p = parked.get(id);
    if (p == null) {
      throw ApiError.notFound("user", "No prepared request \"" + id + "\" on this engine: call"
          + " /microserving/prep_recv first (a reservation is freed after "
          + options.parkedTtl().toSeconds() + " s or by /microserving/release)");
    }
    int len = p.request.promptTokens().length;
    int beginN = PromptWindow.normalise(begin, len);
    if (beginN < 0 || beginN >= len) {
      throw ApiError.invalid("begin", "\"begin\" " + begin + " must satisfy 0 <= begin < prompt length " + len);
    }
    if (beginN < p.matched) {
      throw ApiError.invalid("begin", "\"begin\" " + beginN + " lies inside the prefix this engine"
          + " reused from its cache (" + p.matched + " tokens); use begin >= prefix_matched_length");
    }
    if (beginN > p.end) {
      throw ApiError.invalid("begin", "\"begin\" " + beginN + " is past the prepared window end "
          + p.end + ": positions [" + p.end + ", " + beginN + ") would have no KV");
    }
    synchronized (p) {
      if (p.state() != ParkedRequest.State.WAITING_FOR_KV) {
        throw ApiError.notFound("user", "Prepared request \"" + id + "\" was already "
            + p.state().name().toLowerCase());
      }
      int missing = p.missingBefore(beginN);
      if (missing > 0) {
        throw new ApiError(409, ApiError.INVALID_REQUEST, "The KV window [" + p.matched + ", "
            + beginN + ") of request \"" + id + "\" is incomplete: " + missing + " of "
            + (beginN - p.matched) + " positions never arrived; refusing to decode over missing KV"
            + " (run /microserving/remote_send for the window first, or release the request)",
            "begin", "kv_window_incomplete");
      }
      p.setState(ParkedRequest.State.CLAIMED);
    }
    parked.remove(id);
    placeholders.remove(id);
    counters.startGenerates.incrementAndGet();
    RequestState r = new RequestState(id, RequestState.Kind.GENERATE, p.request, listener, len,
        System.nanoTime());
    r.prefixMatched = p.matched;
    r.receivedKv = beginN > p.matched;
    r.kvReceivedTokens = beginN - p.matched;
    Sequence s = emitter.newChoice(r, 0, p.request.promptTokens(), len);
    r.pendingForks = p.request.n() - 1;
    for (int page : p.pages) {
      s.addPage(page);
    }
    s.numComputed = beginN;
    Integer maxTokens = p.request.sampling().maxTokens();
    if (maxTokens != null && maxTokens == 0) {
      emitter.finishAll(r, FinishReason.LENGTH);
      return r;
    }
    scheduler.enqueueFirst(s);
    return r;
  }

  /** Frees a parked reservation; true if there was one. */
  boolean release(String id) {
    ParkedRequest p = parked.get(id);
    if (p == null) {
      return false;
    }
    drop(id, p);
    counters.parkedReleased.incrementAndGet();
    LOG.debug("released parked request {}", id);
    return true;
  }

  void expire(long now) {
    if (parked.isEmpty()) {
      return;
    }
    for (Map.Entry<String, ParkedRequest> e : new ArrayList<>(parked.entrySet())) {
      if (now - e.getValue().deadlineNanos >= 0) {
        drop(e.getKey(), e.getValue());
        counters.parkedExpired.incrementAndGet();
        LOG.info("parked request {} was not started within {} s: its KV reservation is freed",
            e.getKey(), options.parkedTtl().toSeconds());
      }
    }
  }

  long nanosUntilNextExpiry(long now) {
    long best = Long.MAX_VALUE;
    for (ParkedRequest p : parked.values()) {
      best = Math.min(best, Math.max(0, p.deadlineNanos - now));
    }
    return best;
  }

  private void drop(String id, ParkedRequest p) {
    p.setState(ParkedRequest.State.RELEASED);
    parked.remove(id, p);
    for (int page : p.pages) {
      kv.pages().release(page);
    }
    RequestState placeholder = placeholders.remove(id);
    if (placeholder != null) {
      freeId.accept(placeholder);
    }
  }
}
