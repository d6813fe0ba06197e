package dev.tandem.router.api;

import dev.tandem.router.dispatch.AnswerEnd;
import dev.tandem.router.dispatch.ClientChunk;
import dev.tandem.router.dispatch.ClientOutput;
import dev.tandem.router.metrics.OpsMeters;
import io.vertx.core.Handler;

/**
 * A client output that passes everything on and keeps what the meters and the key's token bucket
 * need: the answer's token counts, or the failure (counted by cause once).
 */
final class MeteredOutput implements ClientOutput {

  private final ClientOutput inner;
  private final OpsMeters ops;
  /** From the answer's usage; -1 until it completed (or when it failed). */
  long totalTokens = -1;
  long completionTokens = -1;

  MeteredOutput(ClientOutput inner, OpsMeters ops) {
    this.inner = inner;
    this.ops = ops;
  }

  @Override
  public void write(ClientChunk chunk) {
    inner.write(chunk);
  }

  @Override
  public boolean writeQueueFull() {
    return inner.writeQueueFull();
  }

  @Override
  public void drainHandler(Handler<Void> handler) {
    inner.drainHandler(handler);
  }

  @Override
  public void complete(AnswerEnd end) {
    totalTokens = end.totalTokens();
    completionTokens = end.completionTokens();
    inner.complete(end);
  }

  @Override
  public void fail(Throwable error) {
    RequestRunner.failed(ops, error);
    inner.fail(error);
  }
}
