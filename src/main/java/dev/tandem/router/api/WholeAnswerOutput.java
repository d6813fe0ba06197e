package dev.tandem.router.api;

import dev.tandem.router.dispatch.ClientChunk;
import dev.tandem.router.dispatch.ClientOutput;
import io.vertx.core.Handler;

/**
 * An output that receives only the whole answer (non-streaming requests): streamed chunks are
 * never sent to it and it never pushes back.
 */
interface WholeAnswerOutput extends ClientOutput {

  @Override
  default void write(ClientChunk chunk) {
    // whole answers only
  }

  @Override
  default boolean writeQueueFull() {
    return false;
  }

  @Override
  default void drainHandler(Handler<Void> handler) {}
}
