package dev.tandem.router.api;

import dev.tandem.api.ErrorResponses;
import dev.tandem.api.ApiError;
import dev.tandem.bus.Addresses;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.router.upstream.Cancellation;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;

/**
 * Completions on the event bus at {@link Addresses#COMPLETIONS}, and chat completions at
 * {@link Addresses#CHAT_COMPLETIONS}, for Vert.x applications that call the fleet without HTTP
 * (bodies are JSON, so a clustered bus works too). Both work alike; a chat's body, reply and
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
  private MessageConsumer<Object> consumer;

  private BusCompletionsEndpoint(Vertx vertx, String address, PreparedRequest.Preparer preparer,
      RouterMetrics metrics) {
    this.vertx = vertx;
    this.address = address;
    this.preparer = preparer;
    this.metrics = metrics;
  }

  /** Completions at {@link Addresses#COMPLETIONS}. */
  public static BusCompletionsEndpoint completions(Vertx vertx, CompletionService service,
      RouterMetrics metrics) {
    return new BusCompletionsEndpoint(vertx, Addresses.COMPLETIONS, service::prepareRequest, metrics);
  }

  /** Chat completions at {@link Addresses#CHAT_COMPLETIONS}. */
  public static BusCompletionsEndpoint chat(Vertx vertx, ChatService service, RouterMetrics metrics) {
    return new BusCompletionsEndpoint(vertx, Addresses.CHAT_COMPLETIONS, service::prepare, metrics);
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
    JsonObject body;
    try {
      body = msg.body() instanceof JsonObject o ? o : new JsonObject(String.valueOf(msg.body()));
    } catch (RuntimeException e) {
      failReply(msg, ApiError.invalid(null, "invalid_json", "the message body must be a JSON object (the request)"));
      return;
    }
    String streamAddress = msg.headers().get(STREAM_ADDRESS_HEADER);
    Cancellation cancellation = new Cancellation();
    preparer.prepare(body, cancellation).onComplete(ar -> {
      if (ar.failed()) {
        failReply(msg, ar.cause());
        return;
      }
      if (!ar.result().stream()) {
        ar.result().execute(new BusOutputs.Reply(msg));
        return;
      }
      if (streamAddress == null || streamAddress.isBlank()) {
        failReply(msg, ApiError.invalid("stream", "missing_stream_address",
            "streaming over the event bus needs the delivery header " + STREAM_ADDRESS_HEADER
                + " naming the address that receives the chunks"));
        return;
      }
      MessageConsumer<Object> cancel = vertx.eventBus()
          .consumer(streamAddress + CANCEL_SUFFIX, m -> cancellation.cancel());
      msg.reply(new JsonObject().put("id", ar.result().id()).put("stream_address", streamAddress));
      ar.result().execute(new BusOutputs.Stream(vertx.eventBus(), streamAddress,
              ar.result().includeUsage()))
          .onComplete(x -> cancel.unregister());
    });
  }

  private void failReply(Message<Object> msg, Throwable error) {
    ApiError e = ErrorResponses.typed(error);
    metrics.requestEnded(e.status());
    msg.fail(e.status(), e.toJson().encode());
  }
}
