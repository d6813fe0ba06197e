package dev.tandem.client;

import dev.tandem.bus.BusStreams;
import dev.tandem.bus.LateMessages;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.streams.ReadStream;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The chunks of one streamed (chat) completion, as a Vert.x {@link ReadStream}: flowing at first,
 * {@link #pause()}, {@link #resume()} and {@link #fetch(long)} as usual. Credit follows demand:
 * the router may send at most {@code window} chunks that the handler has not taken yet (on the
 * way or buffered here), and while the stream is paused it is granted nothing more, so the
 * router stops reading the engine and the engine holds its generation. The end handler runs
 * after the last chunk; a failure goes to the exception handler as a {@link TandemBusException}.
 * {@link #cancel()} stops the request (and the engine's work). Made by {@link TandemBusClient}.
 */
public final class CompletionStream implements ReadStream<JsonObject> {

  private final Vertx vertx;
  private final String address;
  private final int window;
  private final Deque<JsonObject> buffer = new ArrayDeque<>();
  private MessageConsumer<Object> consumer;
  private Context context;
  private Handler<JsonObject> handler;
  private Handler<Void> endHandler;
  private Handler<Throwable> exceptionHandler;
  private long demand = Long.MAX_VALUE;
  private long outstanding;
  private long granted;
  private long received;
  private Throwable failure;
  private boolean done;
  private boolean ended;
  private boolean emitting;
  private String id;

  CompletionStream(Vertx vertx, String address, int window) {
    this.vertx = vertx;
    this.address = address;
    this.window = window;
  }

  /** The credit the request carries: the whole window (the stream starts flowing). */
  int initialCredit() {
    outstanding = window;
    granted = window;
    return window;
  }

  /** Registers the consumer on the caller's context; completes once the whole bus knows it. */
  Future<Void> listen() {
    context = vertx.getOrCreateContext();
    // Messages and the caller's pause/fetch meet on one context, whatever thread registered.
    consumer = LateMessages.dropQuietly(
        vertx.eventBus().consumer(address, m -> context.runOnContext(v -> onMessage(m.body()))));
    return consumer.completion();
  }

  void accepted(String requestId) {
    this.id = requestId;
  }

  /** The request's id ({@code cmpl-...}, {@code chatcmpl-...}). */
  public String id() {
    return id;
  }

  /** The address the chunks come to. */
  public String address() {
    return address;
  }

  /** Credit granted to the router so far, the initial credit included. */
  public long creditGranted() {
    return granted;
  }

  /** Chunks received from the router so far (never more than {@link #creditGranted()}). */
  public long chunksReceived() {
    return received;
  }

  /** Chunks received and not yet handed to the handler. */
  public int buffered() {
    return buffer.size();
  }

  /** Stops the request: the router aborts the engine's work; no handler runs any more. */
  public Future<Void> cancel() {
    if (ended) {
      return Future.succeededFuture();
    }
    ended = true;
    buffer.clear();
    vertx.eventBus().send(address + BusStreams.CANCEL_SUFFIX, "cancel");
    return consumer == null ? Future.succeededFuture() : consumer.unregister();
  }

  @Override
  public CompletionStream handler(Handler<JsonObject> h) {
    handler = h;
    emitLater();
    return this;
  }

  @Override
  public CompletionStream endHandler(Handler<Void> h) {
    endHandler = h;
    return this;
  }

  @Override
  public CompletionStream exceptionHandler(Handler<Throwable> h) {
    exceptionHandler = h;
    return this;
  }

  @Override
  public CompletionStream pause() {
    demand = 0;
    return this;
  }

  @Override
  public CompletionStream resume() {
    return fetch(Long.MAX_VALUE);
  }

  @Override
  public CompletionStream fetch(long amount) {
    if (amount > 0) {
      demand = demand > Long.MAX_VALUE - amount ? Long.MAX_VALUE : demand + amount;
      emitLater();
    }
    return this;
  }

  private void onMessage(Object raw) {
    if (ended) {
      return;
    }
    JsonObject body = raw instanceof JsonObject o ? o : new JsonObject(String.valueOf(raw));
    if (body.containsKey(BusStreams.PROBE)) {
      return;
    }
    if (body.containsKey(BusStreams.DONE)) {
      done = true;
    } else if (body.containsKey(BusStreams.ERROR)) {
      int status = body.getInteger("status", 500);
      failure = new TandemBusException(status, new JsonObject().put(BusStreams.ERROR,
          body.getValue(BusStreams.ERROR)));
    } else {
      received++;
      outstanding--;
      buffer.add(body);
    }
    emit();
  }

  /** Emits on the stream's context after the caller's current code (its handlers set). */
  private void emitLater() {
    context.runOnContext(v -> emit());
  }

  /** Hands buffered chunks to the handler as demanded; then the end, or more credit. */
  private void emit() {
    if (emitting || ended) {
      return;
    }
    emitting = true;
    try {
      while (demand > 0 && handler != null && !buffer.isEmpty() && !ended) {
        if (demand != Long.MAX_VALUE) {
          demand--;
        }
        handler.handle(buffer.poll());
      }
    } finally {
      emitting = false;
    }
    if (ended) {
      return;
    }
    if (buffer.isEmpty() && (done || failure != null) && handler != null) {
      finish();
    } else {
      grant();
    }
  }

  private void finish() {
    ended = true;
    close();
    if (failure != null) {
      if (exceptionHandler != null) {
        exceptionHandler.handle(failure);
      }
    } else if (endHandler != null) {
      endHandler.handle(null);
    }
  }

  /** Tops the credit up to what the demand and the window allow, in batches of half a window. */
  private void grant() {
    if (done || failure != null) {
      return;
    }
    long want = Math.min(window, demand) - buffer.size() - outstanding;
    boolean starved = outstanding <= 0 && buffer.isEmpty();
    if (want > 0 && (want >= Math.max(1, window / 2) || starved)) {
      outstanding += want;
      granted += want;
      vertx.eventBus().send(address + BusStreams.CREDIT_SUFFIX,
          new JsonObject().put(BusStreams.CREDIT, want));
    }
  }

  void close() {
    if (consumer != null) {
      consumer.unregister();
    }
  }
}
