package dev.tandem.bus;

import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.impl.MessageConsumerImpl;

/**
 * Consumers that messages can still reach after they were unregistered, where such a message
 * means nothing: a stream's addresses (its chunks, credit and cancel) after the stream ended, as a
 * caller's grant sent while the last chunk was on its way or a chunk sent as the caller cancelled;
 * and the fleet's broadcasts (engine status and load, node announcements and queries, the
 * supervisor's heartbeat) to a router, supervisor or node that is stopping. The bus had already
 * dispatched such a message to the consumer when it was unregistered, and Vert.x then logs a WARN
 * per message ("Discarding message since the consumer is not registered"), which reads as a fault
 * where nothing was lost.
 */
public final class LateMessages {

  private LateMessages() {}

  /**
   * Has {@code consumer} drop messages that arrive after it was unregistered without a warning.
   * Vert.x 5 offers this only on its consumer implementation (the one both the local and the
   * clustered bus make); another implementation is left as it is.
   */
  public static <T> MessageConsumer<T> dropQuietly(MessageConsumer<T> consumer) {
    if (consumer instanceof MessageConsumerImpl<T> impl) {
      impl.discardHandler(late -> {
        // its stream ended or its owner is stopping: nothing waits for it
      });
    }
    return consumer;
  }
}
