package dev.tandem.router.api;

import dev.tandem.api.ErrorResponses;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import dev.tandem.router.dispatch.AnswerEnd;

/** A non-streaming HTTP answer: the whole aggregated completion, or an error status. */
final class JsonOutput implements WholeAnswerOutput {

  private final HttpServerResponse response;

  JsonOutput(HttpServerResponse response) {
    this.response = response;
  }

  @Override
  public void complete(AnswerEnd end) {
    if (!response.closed() && !response.ended()) {
      response.setStatusCode(200).putHeader(HttpHeaders.CONTENT_TYPE, ErrorResponses.APPLICATION_JSON)
          .end(end.toJsonBuffer());
    }
  }

  @Override
  public void fail(Throwable error) {
    ErrorResponses.send(response, error);
  }
}
