package dev.tandem.router.api;

import dev.tandem.api.ErrorResponses;
import dev.tandem.api.ApiError;
import dev.tandem.router.dispatch.ClientChunk;
import dev.tandem.router.dispatch.ClientOutput;
import io.vertx.core.Handler;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** Event-bus answers; the message formats are documented on {@link BusCompletionsEndpoint}. */
final class BusOutputs {

  private BusOutputs() {}

  /** A whole answer as the reply; a failure as {@code fail(status, OpenAI error body JSON)}. */
  static final class Reply implements WholeAnswerOutput {
    private final Message<?> request;
    private boolean done;

    Reply(Message<?> request) {
      this.request = request;
    }

    @Override
    public void complete(JsonObject whole, JsonObject usage) {
      if (!done) {
        done = true;
        request.reply(whole);
      }
    }

    @Override
    public void fail(Throwable error) {
      if (!done) {
        done = true;
        ApiError e = ErrorResponses.typed(error);
        request.fail(e.status(), e.toJson().encode());
      }
    }
  }

  /** Chunks sent to the caller's stream address, then {@code {"done": true}} or {@code {"error": ...}}. */
  static final class Stream implements ClientOutput {
    private final EventBus bus;
    private final String address;
    private final boolean includeUsage;
    private boolean done;

    Stream(EventBus bus, String address, boolean includeUsage) {
      this.bus = bus;
      this.address = address;
      this.includeUsage = includeUsage;
    }

    @Override
    public void write(ClientChunk chunk) {
      send(chunk.toJson());
    }

    private void send(JsonObject chunk) {
      if (!done) {
        bus.send(address, chunk);
      }
    }

    @Override
    public boolean writeQueueFull() {
      return false;
    }

    @Override
    public void drainHandler(Handler<Void> handler) {}

    @Override
    public void complete(JsonObject whole, JsonObject usage) {
      if (includeUsage) {
        send(whole.copy().put("choices", new JsonArray()).put("usage", usage));
      }
      if (!done) {
        done = true;
        bus.send(address, new JsonObject().put("done", true));
      }
    }

    @Override
    public void fail(Throwable error) {
      if (!done) {
        done = true;
        ApiError e = ErrorResponses.typed(error);
        bus.send(address, e.toJson().put("status", e.status()));
      }
    }
  }
}
