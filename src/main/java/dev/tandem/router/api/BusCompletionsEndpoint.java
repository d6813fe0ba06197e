package dev.tandem.router.api;

import dev.tandem.api.ApiError;
import dev.tandem.api.ErrorResponses;
import dev.tandem.bus.Addresses;
import dev.tandem.bus.BusStreams;
import dev.tandem.bus.LateMessages;
import dev.tandem.router.access.AccessControl;
import dev.tandem.router.access.ClientKey;
import dev.tandem.router.admission.Admission;
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
 * {@link Addresses#chatCompletions()} ({@code tandem.completions} and
 * {@code tandem.chat.completions} unless the router has another {@code --fleet} name), for Vert.x
 * applications that call the fleet without HTTP, in this process or anywhere on a clustered bus
 * (bodies are JSON). Both work alike; a chat's body, reply and chunks are those of
 * {@code POST /v1/chat/completions}. {@code dev.tandem.client.TandemBusClient} speaks all of
 * this for Java callers.
 *
 * <h2>Whole answer (request/reply)</h2>
 * Send the same JSON body as {@code POST /v1/completions} (without {@code stream}, or
 * {@code "stream": false}) with {@code request()}; give it a send timeout long enough for a
 * generation (DeliveryOptions#setSendTimeout). The reply body is the completion JSON, exactly
 * the HTTP answer. A failure is a {@code ReplyException} whose {@code failureCode()} is the HTTP
 * status the request would have had (400, 503, ...) and whose {@code getMessage()} is the OpenAI
 * error body as JSON text.
 *
 * <h2>Streaming, with credit</h2>
 * <ol>
 *   <li>Register a consumer at an address of your own, say {@code my.app.stream.42}, and wait
 *       for its registration to complete (on a cluster it must be known everywhere first).
 *   <li>{@code request()} a body with {@code "stream": true} and the delivery headers
 *       {@value #STREAM_ADDRESS_HEADER} = {@code my.app.stream.42} and
 *       {@value #CREDIT_HEADER} = the number of chunks you can take now (at least 1).
 *   <li>The reply comes at once, after validation: {@code {"id": "cmpl-...", "stream_address":
 *       "my.app.stream.42"}} (a chat's id is {@code chatcmpl-...}), or a failure as above
 *       (invalid request: nothing is streamed). From then on the router listens at
 *       {@code my.app.stream.42.credit} and {@code my.app.stream.42.cancel}.
 *   <li>Your consumer then receives, in order, one message per chunk (the JSON an SSE
 *       {@code data:} line would carry, usage chunk included if {@code stream_options.include_usage}),
 *       and finally exactly one of {@code {"done": true}} or
 *       {@code {"error": {"message", "type", "param", "code"}, "status": 502}}.
 *   <li>Each chunk spends one credit; the final message spends none. Grant more by sending
 *       {@code {"credit": n}} to {@code my.app.stream.42.credit}. Out of credit, the router sends
 *       nothing and stops reading the engine's stream (the engine's own back-pressure then holds
 *       its generation), so a slow consumer never has more chunks waiting than it granted.
 *   <li>While it waits for credit the router sends {@code {"probe": true}} every second (no
 *       credit spent; ignore it): that is how it notices a caller that is gone.
 *   <li>To stop early, send anything to {@code my.app.stream.42.cancel}: the engine request is
 *       aborted and no further chunks come (a final {@code error} message may still arrive).
 * </ol>
 * The caller going away cancels too: when a message cannot be delivered (nobody consumes at the
 * stream address any more — {@code NO_HANDLERS} — or the caller's cluster node is gone), the
 * engine request is aborted and nothing more is sent; so is a stream that gets no credit for
 * five minutes. Without {@value #CREDIT_HEADER} the router sends every chunk as it comes (no
 * back-pressure: the consumer must keep up); the rest is the same.
 *
 * <h2>Keys and limits</h2>
 * The same as over HTTP: once the router has API keys, a request carries one in the delivery
 * header {@value AccessControl#BUS_HEADER} (else a 401 failure); the key's per-minute limits and
 * the router's {@code --max-concurrent} / {@code --max-queue} apply: a 429 failure whose JSON
 * carries, beside {@code error}, {@code "retry_after"}: the seconds HTTP would send as
 * {@code Retry-After}. Bus callers share the running slots with HTTP callers.
 */
public final class BusCompletionsEndpoint {

  /** Delivery header naming the caller's stream address. */
  public static final String STREAM_ADDRESS_HEADER = BusStreams.STREAM_ADDRESS_HEADER;
  /** Delivery header: the chunks the caller can take at first; its absence: no flow control. */
  public static final String CREDIT_HEADER = BusStreams.CREDIT_HEADER;
  /** Suffix of the address on which a streaming caller may cancel. */
  public static final String CANCEL_SUFFIX = BusStreams.CANCEL_SUFFIX;
  /** Suffix of the address on which a streaming caller grants credit: {@code {"credit": n}}. */
  public static final String CREDIT_SUFFIX = BusStreams.CREDIT_SUFFIX;

  private final Vertx vertx;
  private final String address;
  /** {@code completions} or {@code chat}, as the access log names it. */
  private final String api;
  private final PreparedRequest.Preparer preparer;
  private final RouterMetrics metrics;
  private final RequestRunner runner;
  private MessageConsumer<Object> consumer;

  private BusCompletionsEndpoint(Vertx vertx, String address, String api,
      PreparedRequest.Preparer preparer, RouterMetrics metrics, RequestRunner runner) {
    this.vertx = vertx;
    this.address = address;
    this.api = api;
    this.preparer = preparer;
    this.metrics = metrics;
    this.runner = runner;
  }

  /** Completions at {@link Addresses#completions()} of {@code bus}'s fleet. */
  public static BusCompletionsEndpoint completions(Vertx vertx, Addresses bus,
      CompletionService service, RouterMetrics metrics, RequestRunner runner) {
    return new BusCompletionsEndpoint(vertx, bus.completions(), "completions",
        service::prepareRequest, metrics, runner);
  }

  /** Chat completions at {@link Addresses#chatCompletions()} of {@code bus}'s fleet. */
  public static BusCompletionsEndpoint chat(Vertx vertx, Addresses bus, ChatService service,
      RouterMetrics metrics, RequestRunner runner) {
    return new BusCompletionsEndpoint(vertx, bus.chatCompletions(), "chat", service::prepare,
        metrics, runner);
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
    String clientId = RequestRunner.Origin.clientRequestId(
        msg.headers().get(CompletionsHandler.REQUEST_ID));
    ClientKey key;
    JsonObject body;
    long credit;
    try {
      key = runner.access().checkBus(msg.headers().get(AccessControl.BUS_HEADER));
    } catch (ApiError e) {
      failReply(msg, e, new RequestRunner.Origin("bus", api, null, clientId), clock);
      return;
    }
    RequestRunner.Origin origin = new RequestRunner.Origin("bus", api, key, clientId);
    try {
      credit = initialCredit(msg.headers().get(CREDIT_HEADER));
      body = msg.body() instanceof JsonObject o ? o : new JsonObject(String.valueOf(msg.body()));
    } catch (ApiError e) {
      failReply(msg, e, origin, clock);
      return;
    } catch (RuntimeException e) {
      failReply(msg, ApiError.invalid(null, "invalid_json", "the message body must be a JSON object (the request)"),
          origin, clock);
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
      return runner.admit(key, request, cancellation).compose(ticket -> {
        if (!request.stream()) {
          runner.run(request, ticket, new BusOutputs.Reply(msg), clock, origin);
          return Future.succeededFuture();
        }
        return stream(msg, request, ticket, clock, origin, streamAddress, credit, cancellation);
      });
    }).onFailure(err -> failReply(msg, err, origin, clock));
  }

  /**
   * Listens for the caller's cancel and credit (known cluster-wide before the reply tells the
   * caller to use them), replies, and runs the request into the stream.
   */
  private Future<Void> stream(Message<Object> msg, PreparedRequest request, Admission.Ticket ticket,
      RequestClock clock, RequestRunner.Origin origin, String streamAddress, long credit,
      Cancellation cancellation) {
    BusStreamOutput out = new BusStreamOutput(vertx, streamAddress, credit, request.includeUsage(),
        cancellation);
    MessageConsumer<Object> cancel = LateMessages.dropQuietly(vertx.eventBus().consumer(
        streamAddress + CANCEL_SUFFIX, m -> cancellation.cancel()));
    MessageConsumer<Object> credits = LateMessages.dropQuietly(vertx.eventBus().consumer(
        streamAddress + CREDIT_SUFFIX, m -> out.grant(grantOf(m.body()))));
    Runnable unregister = () -> {
      cancel.unregister();
      credits.unregister();
    };
    return Future.all(cancel.completion(), credits.completion()).transform(ar -> {
      if (ar.failed()) {
        unregister.run();
        ticket.release(-1); // never ran: the slot goes back before the failure is answered
        return Future.failedFuture(ar.cause());
      }
      msg.reply(new JsonObject().put("id", request.id()).put("stream_address", streamAddress));
      out.closed().onComplete(x -> unregister.run());
      runner.run(request, ticket, out, clock, origin);
      return Future.succeededFuture();
    });
  }

  /** The initial credit header: absent, unlimited; else a whole number of chunks, at least 1. */
  static long initialCredit(String header) {
    if (header == null) {
      return BusStreamOutput.UNLIMITED;
    }
    try {
      long n = Long.parseLong(header.trim());
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw ApiError.invalid(null, "invalid_stream_credit", "the delivery header " + CREDIT_HEADER
        + " must be a whole number of chunks, at least 1, not '" + header + "'");
  }

  /** {@code {"credit": n}} (or its JSON text); anything else grants nothing. */
  private static long grantOf(Object body) {
    try {
      JsonObject o = body instanceof JsonObject j ? j : new JsonObject(String.valueOf(body));
      return o.getValue(BusStreams.CREDIT) instanceof Number n ? n.longValue() : 0;
    } catch (RuntimeException e) {
      return 0;
    }
  }

  private void failReply(Message<Object> msg, Throwable error, RequestRunner.Origin origin,
      RequestClock clock) {
    runner.refused(error, origin, clock);
    ApiError e = ErrorResponses.typed(error);
    metrics.requestEnded(e.status());
    JsonObject failure = e.toJson();
    if (e.retryAfterSeconds() > 0) { // what HTTP sends as Retry-After
      failure.put("retry_after", e.retryAfterSeconds());
    }
    msg.fail(e.status(), failure.encode());
  }
}
