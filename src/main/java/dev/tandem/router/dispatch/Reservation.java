package dev.tandem.router.dispatch;

import static dev.tandem.config.RouterOptions.RELEASE_TIMEOUT;

import dev.tandem.bus.EngineStatus;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.upstream.Cancellation;
import dev.tandem.router.upstream.ClientGoneException;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * D's parked request for one disaggregated attempt, from {@code prep_recv} until
 * {@code start_generate} claims it or it is released; the router's
 * {@code tandem_reservations_open} counts the open ones. {@link #release} frees it however the
 * attempt ended, the way D's kind allows:
 *
 * <ul>
 *   <li>builtin: {@code POST /microserving/release} (Tandem's extension; safe whatever the state);
 *   <li>MLC, which has no release endpoint and no time-to-live (reference §6 item 12): start the
 *       parked request ({@code start_generate} with its id and {@code max_tokens} 1) and close
 *       the connection as soon as the engine answers, so that its abort-on-disconnect frees the
 *       pages. Only when prep_recv answered (the request is parked for sure) and no
 *       start_generate was sent (a second one for the same id, or one without a parked request,
 *       is a fatal check inside MLC's engine loop: §6 item 13). A prep_recv cut before its answer
 *       needs nothing: MLC aborts a request whose client went away once it parks it.
 * </ul>
 */
final class Reservation {

  private static final Logger LOG = LoggerFactory.getLogger(Reservation.class);

  final EngineStatus engine;
  final String engineRequestId;
  private final RouterMetrics metrics;
  /** prep_recv was sent: something may be parked. */
  boolean sent;
  /** prep_recv answered: the request is parked. */
  private boolean answered;
  /** start_generate was sent: the parked request is claimed (or gone). */
  boolean startSent;
  private boolean open;
  String metadata;

  Reservation(EngineStatus engine, String engineRequestId, RouterMetrics metrics) {
    this.engine = engine;
    this.engineRequestId = engineRequestId;
    this.metrics = metrics;
  }

  void opened(String metadata) {
    this.metadata = metadata;
    answered = true;
    if (!open) {
      open = true;
      metrics.reservationOpened();
    }
  }

  /** start_generate found the parked request: it is the engine's running request now. */
  void consumed() {
    closed(false, false);
  }

  private void closed(boolean explicitly, boolean failed) {
    if (open) {
      open = false;
      metrics.reservationClosed(explicitly, failed);
    }
  }

  /**
   * Best-effort release; never fails the attempt on its own.
   *
   * @param startBody the attempt's start_generate body (MLC engines are released with it)
   */
  Future<Void> release(EngineCalls calls, EngineBody startBody) {
    long timeoutMs = calls.options.get(RELEASE_TIMEOUT).toMillis();
    Future<?> call;
    if (engine.isMlc()) {
      if (!answered || startSent) {
        // start_generate took it (its reset connection aborts it), or nothing was parked
        closed(false, false);
        return Future.succeededFuture();
      }
      startSent = true;
      EngineBody body = startBody.with("max_tokens", 1).with("stream", true);
      call = calls.client.openStream(engine.id(), engine.url(), EngineApi.START_GENERATE, body.toBuffer(),
          "release (start_generate, then disconnect)", timeoutMs, timeoutMs, Cancellation.NONE)
          .map(stream -> {
            stream.abort(new ClientGoneException()); // the disconnect is what frees the pages
            metrics.abortRelease();
            return null;
          });
    } else {
      if (!sent) {
        return Future.succeededFuture();
      }
      call = calls.client.postJson(engine.id(), engine.url(), EngineApi.RELEASE,
          EngineBodies.release(engineRequestId), "release", timeoutMs, Cancellation.NONE);
    }
    return call.transform(ar -> {
      if (ar.failed()) {
        LOG.debug("{}: release on engine {}: {}", engineRequestId, engine.id(),
            ar.cause().getMessage());
      }
      closed(true, ar.failed());
      return Future.<Void>succeededFuture();
    });
  }
}
