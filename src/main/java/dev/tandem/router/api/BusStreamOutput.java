package dev.tandem.router.api;

import dev.tandem.api.ApiError;
import dev.tandem.api.ErrorResponses;
import dev.tandem.bus.BusStreams;
import dev.tandem.router.dispatch.AnswerEnd;
import dev.tandem.router.dispatch.ClientChunk;
import dev.tandem.router.dispatch.ClientOutput;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageProducer;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A streamed answer sent to a bus caller's stream address within the credit it grants (the
 * protocol is {@link BusCompletionsEndpoint}'s): one chunk costs one credit; chunks beyond the
 * credit wait here and {@link #writeQueueFull()} pauses the engine's stream until credit comes, so
 * at most a few chunks ever wait. The final {@code done} or {@code error} message costs nothing
 * but follows every chunk. While it waits for credit it probes the caller every second; a send
 * the bus cannot deliver (no handler at the address, the caller's node gone) means the caller is
 * gone: the request is cancelled (the engine stops) and nothing more is sent. A caller that grants
 * no credit for {@link #STALL_LIMIT_MS} is treated as gone too.
 */
final class BusStreamOutput implements ClientOutput {
  /** Unlimited credit: a caller that grants none at the start gets chunks as they come. */
  static final long UNLIMITED = Long.MAX_VALUE;
  static final long PROBE_MS = 1_000;
  static final long STALL_LIMIT_MS = 300_000;
  private static final Logger LOG = LoggerFactory.getLogger(BusStreamOutput.class);

  private final Vertx vertx;
  private final String address;
  private final MessageProducer<JsonObject> sender;
  private final boolean includeUsage;
  private final Cancellation cancellation;
  private final Deque<JsonObject> waiting = new ArrayDeque<>();
  private long credit;
  private JsonObject last;
  private boolean ended;
  private boolean closed;
  private Handler<Void> drain;
  private long probeTimer = -1;
  private long waitingSince;
  private final Promise<Void> closedPromise = Promise.promise();

  BusStreamOutput(Vertx vertx, String address, long initialCredit, boolean includeUsage,
      Cancellation cancellation) {
    this.vertx = vertx;
    this.address = address;
    this.sender = vertx.eventBus().sender(address);
    this.credit = initialCredit;
    this.includeUsage = includeUsage;
    this.cancellation = cancellation;
  }

  /** More credit from the caller ({@code {"credit": n}} at the stream's credit address). */
  void grant(long n) {
    if (n <= 0 || closed) {
      return;
    }
    credit = credit > UNLIMITED - n ? UNLIMITED : credit + n;
    flush();
  }

  /** Completes once the last message is sent or the caller is gone: nothing more will be sent. */
  Future<Void> closed() {
    return closedPromise.future();
  }

  @Override
  public void write(ClientChunk chunk) {
    if (!ended && !closed) {
      waiting.add(chunk.toJson());
      flush();
    }
  }

  @Override
  public boolean writeQueueFull() {
    return !closed && (credit <= 0 || !waiting.isEmpty());
  }

  @Override
  public void drainHandler(Handler<Void> handler) {
    drain = handler;
  }

  @Override
  public void complete(AnswerEnd end) {
    if (ended) {
      return;
    }
    ended = true;
    if (includeUsage && !closed) {
      waiting.add(end.toJson()); // a stream's end is its usage chunk
    }
    last = new JsonObject().put(BusStreams.DONE, true);
    flush();
  }

  @Override
  public void fail(Throwable error) {
    if (ended) {
      return;
    }
    ended = true;
    ApiError e = ErrorResponses.typed(error);
    last = e.toJson().put("status", e.status());
    flush();
  }

  private void flush() {
    if (closed) {
      return;
    }
    while (credit > 0 && !waiting.isEmpty()) {
      send(waiting.poll());
      if (credit != UNLIMITED) {
        credit--;
      }
    }
    if (waiting.isEmpty() && last != null) {
      send(last);
      close();
      return;
    }
    if (writeQueueFull()) {
      startProbing();
    } else {
      stopProbing();
      Handler<Void> h = drain;
      drain = null;
      if (h != null && !ended) {
        h.handle(null);
      }
    }
  }

  private void send(JsonObject message) {
    sender.write(message).onFailure(this::callerGone);
  }

  private void startProbing() {
    if (probeTimer >= 0) {
      return;
    }
    waitingSince = System.nanoTime();
    probeTimer = vertx.setPeriodic(PROBE_MS, id -> {
      if ((System.nanoTime() - waitingSince) / 1_000_000 >= STALL_LIMIT_MS) {
        callerGone(new IllegalStateException("no credit for " + STALL_LIMIT_MS / 1000 + " s"));
      } else {
        send(new JsonObject().put(BusStreams.PROBE, true));
      }
    });
  }

  private void stopProbing() {
    if (probeTimer >= 0) {
      vertx.cancelTimer(probeTimer);
      probeTimer = -1;
    }
  }

  private void callerGone(Throwable why) {
    if (closed) {
      return;
    }
    LOG.info("bus stream {}: the caller is gone ({}); its request is cancelled", address,
        why.getMessage());
    close();
    cancellation.cancel();
  }

  private void close() {
    closed = true;
    waiting.clear();
    drain = null;
    stopProbing();
    closedPromise.tryComplete();
  }
}
