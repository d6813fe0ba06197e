package dev.tandem.router.api;

import dev.tandem.api.ErrorResponses;
import dev.tandem.api.ApiError;
import io.vertx.core.eventbus.Message;
import dev.tandem.router.dispatch.AnswerEnd;

/**
 * Event-bus whole answers; the message formats are documented on {@link BusCompletionsEndpoint}
 * (streams: {@link BusStreamOutput}).
 */
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
    public void complete(AnswerEnd end) {
      if (!done) {
        done = true;
        request.reply(end.toJson());
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
}
