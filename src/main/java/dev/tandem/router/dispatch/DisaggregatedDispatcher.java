package dev.tandem.router.dispatch;

import static dev.tandem.config.RouterOptions.PD_BALANCE_FACTOR;

import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineStatus;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.policy.CacheAwarePolicy;
import dev.tandem.kv.KvAppendMetadata;
import dev.tandem.router.policy.EngineSnapshot;
import dev.tandem.router.policy.PdSplitPolicy;
import dev.tandem.router.policy.KvWindow;
import dev.tandem.router.upstream.UpstreamException;
import dev.tandem.router.upstream.UsageExtra;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prefill/decode disaggregation in MLC's call order (reference §4.6), with its unsafe spots fixed:
 *
 * <ol>
 *   <li>D = the route policy's READY decode engine (least-loaded, or cache-aware on D's prefix
 *       cache), then the split policy's decision (static factor, or adaptive: decode-only, full
 *       or partial), then P = the policy's READY prefill engine other than D (cache-aware on P's
 *       cache); window end from the balance factor, normalised and validated;
 *   <li>{@code prep_recv} on D: KV metadata and D's prefix-cache hit, checked against the window;
 *   <li>{@code remote_send} on P ({@code recv_rank} = D's first PE) only if D's cache does not
 *       already cover the window;
 *   <li>{@code start_generate} on D with {@code begin = end}, relayed to the client.
 * </ol>
 *
 * If no prefill engine is READY (in D's world, and that world whole), D serves the request
 * whole with a plain {@code /v1/completions} (with batch-invariant engines the answer is the
 * same as the disaggregated one). Whatever
 * happens after {@code prep_recv} was sent (error, preempt, client gone, timeout), D's parked
 * reservation is released before the attempt ends, as D's kind allows ({@link Reservation}).
 * Every window is checked before the call that carries it, so that no call can trip a fatal
 * check inside an MLC engine (reference §6 item 13).
 * In-flight units are held on D for the whole attempt and on P during its {@code remote_send}.
 */
public final class DisaggregatedDispatcher implements Dispatcher {

  private static final Logger LOG = LoggerFactory.getLogger(DisaggregatedDispatcher.class);

  private final EngineCalls calls;

  DisaggregatedDispatcher(EngineCalls calls) {
    this.calls = calls;
  }

  @Override
  public boolean canServe() {
    return calls.registry.ready().stream().anyMatch(e -> e.role().canDecode());
  }

  @Override
  public Future<Void> run(Attempt a) {
    List<EngineSnapshot> engines = calls.registry.snapshot();
    int[] prompt = a.spec().promptIds();
    CacheAwarePolicy.Choice dChoice = calls.policy.chooseDecode(engines, a.excluded(), prompt)
        .orElse(null);
    if (dChoice == null) {
      return Future.failedFuture(calls.noEngine("decode", EngineRole::canDecode));
    }
    EngineSnapshot d = dChoice.engine();
    EngineStatus decode = calls.status(d);
    Routing routing = calls.chosen("decode", dChoice);
    a.result().routing(routing);
    Set<Integer> notP = new HashSet<>(a.excluded());
    notP.add(d.id());
    notP.addAll(calls.cannotSendTo(decode)); // not in D's world, or that world is not whole
    // D's prefill queue: requests it has not admitted yet (its running ones are mostly decoding)
    long dQueue = d.gauges() == null ? 0 : d.gauges().waiting();
    int uncached = Math.max(0, prompt.length - dChoice.predictedMatch());
    PdSplitPolicy.Decision split = calls.split.decide(prompt.length, dChoice.predictedMatch(),
        calls.policy.prefillQueue(engines, notP),
        calls.policy.prefillWaitMillis(engines, notP, calls.backlog, uncached), dQueue);
    calls.metrics.pdDecision(split.kind().label());
    routing.split(calls.split.options().mode().wireName(), split);
    EngineBody body = EngineBodies.generation(a, calls.requestTokenIds);
    if (split.kind() == PdSplitPolicy.Kind.DECODE_ONLY) {
      LOG.debug("{}: engine {} prefills itself ({})", a.engineRequestId(), d.id(), split.why());
      return calls.lease(decode.id()).during(
          () -> calls.generate(a, decode, EngineApi.COMPLETIONS, body, () -> {}))
          .onSuccess(v -> observe(decode, prompt, a.result().engineUsageExtra()));
    }
    CacheAwarePolicy.Choice pChoice = calls.policy.choosePrefill(engines, notP, prompt).orElseThrow();
    calls.metrics.routeDecision("prefill", pChoice.reason());
    routing.prefill(Routing.Pick.of("prefill", pChoice));
    EngineStatus prefill = calls.status(pChoice.engine());
    KvWindow window = KvWindow.of(prompt.length, split.balanceFactor());
    return calls.lease(decode.id()).during(
        () -> disaggregate(a, decode, prefill, window, body));
  }

  private void observe(EngineStatus decode, int[] prompt, UsageExtra usageExtra) {
    int cached = EngineCalls.cachedTokens(usageExtra);
    if (cached >= 0) {
      calls.policy.observed(decode.id(), prompt, cached, true);
    }
  }

  private Future<Void> disaggregate(Attempt a, EngineStatus decode, EngineStatus prefill,
      KvWindow window, EngineBody body) {
    Reservation reservation = new Reservation(decode, a.engineRequestId(), calls.metrics);
    EngineBody start = EngineBodies.startGenerate(body, window.end());
    Future<Void> work = prepRecv(a, decode, prefill, window, body, reservation)
        .compose(matched -> window.needsRemoteSend(matched)
            ? remoteSend(a, prefill, decode, window, matched, body, reservation.metadata)
            : Future.<Void>succeededFuture())
        .compose(v -> {
          reservation.startSent = true;
          return calls.generate(a, decode, EngineApi.START_GENERATE, start, reservation::consumed);
        });
    return work.transform(ar -> {
      if (ar.succeeded() && !a.result().sawPreempt()) {
        return Future.<Void>succeededFuture();
      }
      return reservation.release(calls, start).transform(x -> ar.succeeded()
          ? Future.<Void>succeededFuture() : Future.<Void>failedFuture(ar.cause()));
    });
  }

  /** prep_recv on D; completes with D's prefix-matched length, validated against the window. */
  private Future<Integer> prepRecv(Attempt a, EngineStatus decode, EngineStatus prefill,
      KvWindow window, EngineBody body, Reservation reservation) {
    reservation.sent = true;
    return calls.client.postJson(decode.id(), decode.url(), EngineApi.PREP_RECV,
            EngineBodies.prepRecv(body, window.end()).toBuffer(), "prep_recv",
            calls.prepRecvMillis, a.cancellation())
        .onFailure(e -> {
          if (e instanceof UpstreamException ue && (ue.kind() == UpstreamException.Kind.BUSY
              || ue.kind() == UpstreamException.Kind.REJECTED)) {
            reservation.sent = false; // D answered "no": nothing was parked
          }
        })
        .compose(answer -> {
          Object matched = answer.getValue("prefix_matched_length");
          Object metadata = answer.getValue("kv_append_metadata");
          if (!(matched instanceof Number m) || !(metadata instanceof String md) || md.isEmpty()) {
            return Future.failedFuture(UpstreamException.protocol(decode.id(), "prep_recv",
                "expected kv_append_metadata and prefix_matched_length, got " + answer.encode()));
          }
          reservation.opened(md);
          calls.policy.observed(decode.id(), a.spec().promptIds(), m.intValue(), true);
          if (!window.acceptsPrefixMatch(m.intValue())) {
            return Future.failedFuture(UpstreamException.protocol(decode.id(), "prep_recv",
                "prefix_matched_length " + m + " outside [0, " + window.end() + "]"));
          }
          // A wrong slot count trips a fatal check in an MLC prefill engine's loop (a builtin
          // one answers 400 itself): such metadata never reaches it.
          String slots = prefill.isMlc() && window.needsRemoteSend(m.intValue())
              ? checkSlots(md, window.end() - m.intValue()) : null;
          if (slots != null) {
            return Future.failedFuture(UpstreamException.protocol(decode.id(), "prep_recv",
                "kv_append_metadata " + slots));
          }
          return Future.succeededFuture(m.intValue());
        });
  }

  /** Null when {@code metadata} names exactly {@code expected} slots, else what is wrong. */
  private static String checkSlots(String metadata, int expected) {
    try {
      int slots = KvAppendMetadata.slotCount(metadata);
      return slots == expected ? null
          : "names " + slots + " slots for a window of " + expected + " tokens";
    } catch (IllegalArgumentException e) {
      return "is malformed: " + e.getMessage();
    }
  }

  private Future<Void> remoteSend(Attempt a, EngineStatus prefill, EngineStatus decode,
      KvWindow window, int matched, EngineBody body, String metadata) {
    Buffer send = EngineBodies.remoteSend(body, matched, window.end(), metadata, decode.peStart())
        .toBuffer();
    int tokens = window.end() - matched;
    calls.backlog.sent(prefill.id(), tokens, System.nanoTime());
    return calls.lease(prefill.id()).during(() -> calls.client.postJson(prefill.id(),
            prefill.url(), EngineApi.REMOTE_SEND, send, "remote_send",
            calls.remoteSendMillis, a.cancellation()))
        .onComplete(ar -> calls.backlog.ended(prefill.id(), tokens, ar.succeeded(), System.nanoTime()))
        .mapEmpty();
  }
}
