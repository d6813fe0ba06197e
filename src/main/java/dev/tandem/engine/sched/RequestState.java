package dev.tandem.engine.sched;

import dev.tandem.kv.KvRows;
import dev.tandem.kv.KvShipper;
import java.util.concurrent.CompletableFuture;

/** The engine's bookkeeping for one request: its choices, counts and timings. Engine thread only. */
final class RequestState {
  enum Kind {
    /** Generates text for a client (/v1/completions, start_generate). */
    GENERATE,
    /** Computes a prompt window's KV and ships it to another engine (remote_send). */
    SEND
  }

  final String id;
  final Kind kind;
  final GenerationRequest request;
  final GenerationListener listener;
  final int promptLength;
  final Sequence[] choices;
  /** Choices still to be forked from choice 0 once the prompt is computed. */
  int pendingForks;
  /** Pages reserved for the forks' copies of the prompt's last, partial page. */
  int[] forkPages = new int[0];
  int unfinished;
  boolean done;
  /** Its client cannot take more output right now: not scheduled, its KV kept, until released. */
  boolean outputHeld;

  final long arrivalNanos;
  long firstTokenNanos;
  long prefillTokens;
  long decodeTokens;
  int prefixMatched = -1;
  int preemptions;
  /** The prompt's KV came from another engine: losing it ends the request with "preempt". */
  boolean receivedKv;
  int kvReceivedTokens;

  // remote_send only
  int sendBegin;
  int[] destSlots;
  int recvRank;
  KvShipper shipper;
  CompletableFuture<Void> sendResult;
  KvRows sendRows;

  RequestState(String id, Kind kind, GenerationRequest request, GenerationListener listener,
      int promptLength, long arrivalNanos) {
    this.id = id;
    this.kind = kind;
    this.request = request;
    this.listener = listener;
    this.promptLength = promptLength;
    this.choices = new Sequence[kind == Kind.SEND ? 1 : request.n()];
    this.unfinished = choices.length;
    this.arrivalNanos = arrivalNanos;
  }

  SamplingParams sampling() {
    return request.sampling();
  }
}
