package dev.tandem.router.api;

import dev.tandem.api.ErrorResponses;
import dev.tandem.api.ApiError;
import dev.tandem.bus.Addresses;
import dev.tandem.router.access.AccessControl;
import dev.tandem.router.access.ClientKey;
import dev.tandem.router.metrics.RequestClock;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;

/**
 * Completions on the event bus at {@link Addresses#completions()}, and chat completions at
 * {@link Addresses#chatCompletions()} ({@code tandem.completions} and {@code tandem.chat.completions}
 * unless the router has another {@code --fleet} name), for Vert.x applications that call the fleet
 * without HTTP (bodies are JSON, so a clustered bus works too). Both work alike; a chat's body, reply and
 * chunks are those of {@code POST /v1/chat/completions}.
 *
 * <h2>Whole answer (request/reply)</h2>
 * Send the same JSON body as {@code POST /v1/completions} (without {@code stream}, or
 * {@code "stream": false}) with {@code request()}; give it a send timeout long enough for a
 * generation (DeliveryOptions#setSendTimeout). The reply body is the completion JSON, exactly
 * the HTTP answer. A failure is a {@code ReplyException} whose {@code failureCode()} is the HTTP
 * status the request would have had (400, 503, ...) and whose {@code getMessage()} is the OpenAI
 * error body as JSON text.
 *
 * <h2>Streaming</h2>
 * <ol>
 *   <li>Register a consumer at an address of your own, say {@code my.app.stream.42}.
 *   <li>{@code request()} a body with {@code "stream": true} and the delivery header
 *       {@value #STREAM_ADDRESS_HEADER} = {@code my.app.stream.42}.
 *   <li>The reply comes at once, after validation: {@code {"id": "cmpl-...", "stream_address":
 *       "my.app.stream.42"}} (a chat's id is {@code chatcmpl-...}), or a failure as above
 *       (invalid request: nothing is streamed).
 *   <li>Your consumer then receives, in order, one message per chunk (the JSON an SSE
 *       {@code data:} line would carry, usage chunk included if {@code stream_options.include_usage}),
 *       and finally exactly one of {@code {"done": true}} or
 *       {@code {"error": {"message", "type", "param", "code"}, "status": 502}}.
 *   <li>To stop early, send anything to {@code my.app.stream.42.cancel}: the engine request is
 *       aborted and no further chunks come (a final {@code error} message may still arrive).
 * </ol>
 * Chunks are sent without acknowledgement: the bus gives no back-pressure, so a consumer should
 * keep up (it runs on its own context) or cancel.
 *
 * <h2>Keys and limits</h2>
 * The same as over HTTP: once the router has API keys, a request carries one in the delivery
 * header {@value AccessControl#BUS_HEADER} (else a 401 failure); the key's per-minute limits and
 * the router's {@code --max-concurrent} / {@code --max-queue} apply (a 429 failure, the message
 * saying when to try again). Bus callers share the running slots with HTTP callers.
 */
public final class BusCompletionsEndpoint {

  /** Delivery header naming the caller's stream address. */
  public static final String STREAM_ADDRESS_HEADER = "tandem-stream-address";
  /** Suffix of the address on which a streaming caller may cancel. */
  public static final String CANCEL_SUFFIX = ".cancel";

  private final Vertx vertx;
  private final String address;
  private final PreparedRequest.Preparer preparer;
  private final RouterMetrics metrics;
  private final RequestRunner runner;
  private MessageConsumer<Object> consumer;

  private BusCompletionsEndpoint(Vertx vertx, String address, PreparedRequest.Preparer preparer,
      RouterMetrics metrics, RequestRunner runner) {
    this.vertx = vertx;
    this.address = address;
    this.preparer = preparer;
    this.metrics = metrics;
    this.runner = runner;
  }

  /** Completions at {@link Addresses#completions()} of {@code bus}'s fleet. */
  public static BusCompletionsEndpoint completions(Vertx vertx, Addresses bus,
      CompletionService service, RouterMetrics metrics, RequestRunner runner) {
    return new BusCompletionsEndpoint(vertx, bus.completions(), service::prepareRequest, metrics,
        runner);
  }

  /** Chat completions at {@link Addresses#chatCompletions()} of {@code bus}'s fleet. */
  public static BusCompletionsEndpoint chat(Vertx vertx, Addresses bus, ChatService service,
      RouterMetrics metrics, RequestRunner runner) {
    return new BusCompletionsEndpoint(vertx, bus.chatCompletions(), service::prepare, metrics,
        runner);
  }

  public Future<Void> start() {
    consumer = vertx.eventBus().consumer(address, this::onRequest);
    return consumer.completion();
  }

  public Future<Void> stop() {
    return consumer == null ? Future.succeededFuture() : consumer.unregister();
  }

  private void onRequest(Message<Object> msg) {
    metrics.requestStarted();
    RequestClock clock = new RequestClock();
    ClientKey key;
    JsonObject body;
    try {
      key = runner.access().checkBus(msg.headers().get(AccessControl.BUS_HEADER));
      body = msg.body() instanceof JsonObject o ? o : new JsonObject(String.valueOf(msg.body()));
    } catch (ApiError e) {
      failReply(msg, e);
      return;
    } catch (RuntimeException e) {
      failReply(msg, ApiError.invalid(null, "invalid_json", "the message body must be a JSON object (the request)"));
      return;
    }
    String streamAddress = msg.headers().get(STREAM_ADDRESS_HEADER);
    Cancellation cancellation = new Cancellation();
    preparer.prepare(body, cancellation).compose(request -> {
      if (request.stream() && (streamAddress == null || streamAddress.isBlank())) {
        return Future.failedFuture(ApiError.invalid("stream", "missing_stream_address",
            "streaming over the event bus needs the delivery header " + STREAM_ADDRESS_HEADER
                + " naming the address that receives the chunks"));
      }
      return runner.admit(key, request, cancellation).map(ticket -> {
        if (!request.stream()) {
          runner.run(request, ticket, new BusOutputs.Reply(msg), clock);
          return null;
        }
        MessageConsumer<Object> cancel;
        try {
          cancel = vertx.eventBus().consumer(streamAddress + CANCEL_SUFFIX, m -> cancellation.cancel());
          msg.reply(new JsonObject().put("id", request.id()).put("stream_address", streamAddress));
        } catch (RuntimeException e) {
          ticket.release(-1); // never ran: the slot goes back before the failure is answered
          throw e;
        }
        runner.run(request, ticket, new BusOutputs.Stream(vertx.eventBus(), streamAddress,
                request.includeUsage()), clock)
            .onComplete(x -> cancel.unregister());
        return null;
      });
    }).onFailure(err -> failReply(msg, err));
  }

  private void failReply(Message<Object> msg, Throwable error) {
    runner.refused(error);
    ApiError e = ErrorResponses.typed(error);
    metrics.requestEnded(e.status());
    msg.fail(e.status(), e.toJson().encode());
  }
}
