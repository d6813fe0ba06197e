package dev.tandem.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.testing.StandardErrorCapture;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LateMessagesTest {

  private static final String WARNING = "Discarding message since the consumer is not registered";

  private Vertx vertx;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aMessageThatReachesAnUnregisteredStreamConsumerIsDroppedWithoutAWarning() throws Exception {
    String log = lateMessage(true);
    assertFalse(log.contains(WARNING), log);
  }

  /** The control: the same late message without it is what Vert.x warns about. */
  @Test
  void withoutItVertxWarnsAboutTheSameLateMessage() throws Exception {
    String log = lateMessage(false);
    assertTrue(log.contains(WARNING), log);
  }

  /**
   * A stream's end as the router sees it: a credit is sent to the stream's consumer, which is
   * unregistered before the message is handled (in the same task on the consumer's context, so
   * the bus has dispatched it first). Returns what was logged meanwhile.
   */
  private String lateMessage(boolean quiet) throws Exception {
    // silent: the control's warning is expected, and a build's log should show none
    try (StandardErrorCapture err = StandardErrorCapture.silent()) {
      List<Object> handled = new CopyOnWriteArrayList<>();
      CompletableFuture<Void> done = new CompletableFuture<>();
      Context context = vertx.getOrCreateContext();
      context.runOnContext(v -> {
        MessageConsumer<Object> consumer = vertx.eventBus().consumer("stream-1.credit",
            m -> handled.add(m.body()));
        if (quiet) {
          LateMessages.dropQuietly(consumer);
        }
        consumer.completion().onComplete(registered -> {
          vertx.eventBus().send("stream-1.credit", "{\"credit\": 4}");
          consumer.unregister().onComplete(u -> vertx.setTimer(100, t -> done.complete(null)));
        });
      });
      done.get(10, TimeUnit.SECONDS);
      assertEquals(List.of(), handled, "the late message reached the handler");
      return err.text();
    }
  }
}
