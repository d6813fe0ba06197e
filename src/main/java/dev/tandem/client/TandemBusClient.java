package dev.tandem.client;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.BusStreams;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.UUID;

/**
 * A typed client of a Tandem fleet's event-bus API, for Vert.x applications in the router's
 * process or anywhere on its cluster (docs/cluster.md): whole answers as futures, streams as a
 * Vert.x {@code ReadStream} that grants the router credit as the consumer demands chunks. It
 * knows only the bus contract ({@code dev.tandem.bus}), nothing of the router.
 *
 * <pre>{@code
 * TandemBusClient tandem = TandemBusClient.create(vertx);           // fleet "tandem"
 * tandem.completion(new JsonObject().put("prompt", "Hello").put("max_tokens", 16))
 *     .onSuccess(answer -> System.out.println(answer.getJsonArray("choices")));
 * tandem.streamCompletion(body).onSuccess(stream -> stream
 *     .handler(chunk -> ...)             // one OpenAI chunk object per call
 *     .endHandler(v -> ...)              // the stream ended well
 *     .exceptionHandler(err -> ...));    // a TandemBusException (status, OpenAI error body)
 * }</pre>
 *
 * Failures are {@link TandemBusException}s carrying the HTTP status and OpenAI error body; no
 * router on the bus is a 503, no answer within the timeout a 504. Use a client from one Vert.x
 * context (a verticle's, or the one it was first used on): streams deliver there.
 */
public final class TandemBusClient {
  /** How long a whole answer may take by default. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);
  /** Chunks a stream may have on the way or waiting for its handler by default. */
  public static final int DEFAULT_WINDOW = 16;

  private final Vertx vertx;
  private final Addresses bus;
  private final String apiKey;
  private final Duration timeout;
  private final int window;

  private TandemBusClient(Vertx vertx, Addresses bus, String apiKey, Duration timeout, int window) {
    this.vertx = vertx;
    this.bus = bus;
    this.apiKey = apiKey;
    this.timeout = timeout;
    this.window = window;
  }

  /** A client of the default fleet ({@code tandem.*} addresses). */
  public static TandemBusClient create(Vertx vertx) {
    return new TandemBusClient(vertx, Addresses.DEFAULT, null, DEFAULT_TIMEOUT, DEFAULT_WINDOW);
  }

  /** The same client for the fleet named {@code fleet} (the router's {@code --fleet}). */
  public TandemBusClient fleet(String fleet) {
    return new TandemBusClient(vertx, Addresses.of(fleet), apiKey, timeout, window);
  }

  /** The same client sending {@code key} with every request (routers with API keys). */
  public TandemBusClient apiKey(String key) {
    return new TandemBusClient(vertx, bus, key, timeout, window);
  }

  /** The same client waiting {@code t} for a whole answer (and for a stream to be accepted). */
  public TandemBusClient timeout(Duration t) {
    return new TandemBusClient(vertx, bus, apiKey, t, window);
  }

  /**
   * The same client with another stream window: the most chunks a stream has granted and not yet
   * handed to its handler (at least 1). Smaller: less memory and a closer hold on the engine;
   * larger: fewer credit messages.
   */
  public TandemBusClient window(int chunks) {
    if (chunks < 1) {
      throw new IllegalArgumentException("window must be at least 1, not " + chunks);
    }
    return new TandemBusClient(vertx, bus, apiKey, timeout, chunks);
  }

  /** The fleet this client calls. */
  public String fleetName() {
    return bus.fleet();
  }

  /** {@code POST /v1/completions} without streaming: the completion object. */
  public Future<JsonObject> completion(JsonObject body) {
    return whole(bus.completions(), body);
  }

  /** {@code POST /v1/chat/completions} without streaming: the chat.completion object. */
  public Future<JsonObject> chatCompletion(JsonObject body) {
    return whole(bus.chatCompletions(), body);
  }

  /** A streamed completion ({@code "stream": true} is set): its chunks as a ReadStream. */
  public Future<CompletionStream> streamCompletion(JsonObject body) {
    return stream(bus.completions(), body);
  }

  /** A streamed chat completion: {@code chat.completion.chunk} objects as a ReadStream. */
  public Future<CompletionStream> streamChatCompletion(JsonObject body) {
    return stream(bus.chatCompletions(), body);
  }

  private Future<JsonObject> whole(String address, JsonObject body) {
    JsonObject request = body.copy();
    request.remove("stream");
    return vertx.eventBus().<Object>request(address, request, options())
        .transform(ar -> ar.succeeded() ? Future.succeededFuture(asJson(ar.result().body()))
            : Future.failedFuture(failure(address, ar.cause())));
  }

  private Future<CompletionStream> stream(String address, JsonObject body) {
    String streamAddress = "tandem-client." + UUID.randomUUID();
    CompletionStream stream = new CompletionStream(vertx, streamAddress, window);
    DeliveryOptions options = options()
        .addHeader(BusStreams.STREAM_ADDRESS_HEADER, streamAddress)
        .addHeader(BusStreams.CREDIT_HEADER, Integer.toString(stream.initialCredit()));
    return stream.listen()
        .compose(v -> vertx.eventBus().<Object>request(address, body.copy().put("stream", true),
            options))
        .transform(ar -> {
          if (ar.failed()) {
            stream.close();
            return Future.failedFuture(failure(address, ar.cause()));
          }
          stream.accepted(asJson(ar.result().body()).getString("id"));
          return Future.succeededFuture(stream);
        });
  }

  private DeliveryOptions options() {
    DeliveryOptions options = new DeliveryOptions().setSendTimeout(timeout.toMillis());
    if (apiKey != null) {
      options.addHeader(BusStreams.API_KEY_HEADER, apiKey);
    }
    return options;
  }

  private static JsonObject asJson(Object body) {
    return body instanceof JsonObject o ? o : new JsonObject(String.valueOf(body));
  }

  /** A reply failure as the status and OpenAI body the router meant, or the bus's own. */
  static Throwable failure(String address, Throwable err) {
    if (!(err instanceof ReplyException re)) {
      return err;
    }
    switch (re.failureType()) {
      case NO_HANDLERS:
        return TandemBusException.of(503, "no_router", "no Tandem router serves " + address
            + " on this bus (is it up, clustered, and of this fleet?)");
      case TIMEOUT:
        return TandemBusException.of(504, "timeout", "no answer from " + address + " in time: "
            + re.getMessage());
      default:
        try {
          return new TandemBusException(re.failureCode(), new JsonObject(re.getMessage()));
        } catch (RuntimeException notJson) {
          return TandemBusException.of(re.failureCode() > 0 ? re.failureCode() : 500,
              "bus_failure", String.valueOf(re.getMessage()));
        }
    }
  }
}
