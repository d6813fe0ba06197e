package dev.tandem.engine.sched;

import dev.tandem.api.ApiError;
import dev.tandem.engine.kv.PagedKvCache;
import dev.tandem.kv.KvRows;
import dev.tandem.kv.KvShipper;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The prefill engine's side of MicroServing ({@code remote_send}): compute the KV of
 * {@code prompt[0, end)} like any prefill, then ship positions {@code [begin, end)} into the
 * decode engine's reserved slots and answer once the receiver acknowledged them. Engine thread.
 */
final class KvSendSide {
  private final PagedKvCache kv;
  private final BatchScheduler scheduler;
  private final TokenEmitter emitter;
  private final EngineCounters counters;
  /** Requests with a send in progress here: a second send of the same one is a conflict. */
  private final Set<String> sending = new HashSet<>();

  KvSendSide(PagedKvCache kv, BatchScheduler scheduler, TokenEmitter emitter, EngineCounters counters) {
    this.kv = kv;
    this.scheduler = scheduler;
    this.emitter = emitter;
    this.counters = counters;
  }

  /** Validates a remote_send window against the prompt: 0 <= begin < end < len, slots = end - begin. */
  static void checkSendWindow(int promptLength, int begin, int end, int numSlots) {
    int endN = PromptWindow.normalise(end, promptLength);
    if (begin < 0) {
      throw ApiError.invalid("begin", "\"begin\" must be >= 0, got " + begin);
    }
    if (endN < 0 || endN >= promptLength) {
      throw ApiError.invalid("end", "\"end\" " + end + " must satisfy 0 <= end < prompt length "
          + promptLength + " (the last prompt token is always computed by the decode engine)");
    }
    if (begin >= endN) {
      throw ApiError.invalid("begin", "\"begin\" " + begin + " must be below \"end\" " + endN);
    }
    if (numSlots != endN - begin) {
      throw ApiError.invalid("kv_addr_info", "\"kv_addr_info\" names " + numSlots
          + " slots but the window [" + begin + ", " + endN + ") has " + (endN - begin) + " positions");
    }
  }

  /** Queues the prefill of {@code prompt[0, end)}; {@code result} completes when its KV arrived. */
  void remoteSend(GenerationRequest request, int begin, int end, int[] destSlots, int recvRank,
      KvShipper shipper, CompletableFuture<Void> result) {
    if (!sending.add(request.id())) {
      throw ApiError.conflict("user", "A remote_send for request \"" + request.id()
          + "\" is already running on this engine");
    }
    int endN = PromptWindow.normalise(end, request.promptTokens().length);
    RequestState r = new RequestState(request.id(), RequestState.Kind.SEND, request, null, endN,
        System.nanoTime());
    r.sendBegin = begin;
    r.destSlots = destSlots;
    r.recvRank = recvRank;
    r.shipper = shipper;
    r.sendResult = result;
    counters.remoteSends.incrementAndGet();
    scheduler.enqueue(emitter.newChoice(r, 0, request.promptTokens(), endN));
  }

  /** A send that ended without shipping (its step failed): the request may be sent again. */
  void forget(RequestState r) {
    if (r.kind == RequestState.Kind.SEND) {
      sending.remove(r.id);
    }
  }

  /** Ships the KV of every send whose window is computed, freeing its pages first. */
  void completeReadySends() {
    List<Sequence> ready = new ArrayList<>();
    for (Sequence s : scheduler.running) {
      if (s.request.kind == RequestState.Kind.SEND && s.numComputed >= s.length) {
        ready.add(s);
      }
    }
    for (Sequence s : ready) {
      ship(s);
    }
  }

  private void ship(Sequence s) {
    RequestState r = s.request;
    KvRows rows = kv.readRows(s.slots(r.sendBegin, s.length));
    scheduler.remove(s);
    r.done = true;
    sending.remove(r.id);
    CompletableFuture<Void> shipped;
    try {
      shipped = r.shipper.ship(r.recvRank, r.id, r.destSlots, rows);
    } catch (RuntimeException e) {
      shipped = CompletableFuture.failedFuture(e);
    }
    int tokens = rows.numTokens();
    shipped.whenComplete((ok, failure) -> {
      if (failure == null) {
        counters.kvSentTokens.addAndGet(tokens);
        r.sendResult.complete(null);
      } else {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause() : failure;
        r.sendResult.completeExceptionally(new ApiError(502, ApiError.SERVER_ERROR,
            "KV transfer of request \"" + r.id + "\" to PE " + r.recvRank + " failed: "
                + cause.getMessage(), null, "kv_transfer_failed"));
      }
    });
  }
}
