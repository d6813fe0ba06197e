package dev.tandem.router.dispatch;

import io.vertx.core.Handler;

/** Where relayed choice deltas go (the request's flow), with the client's back-pressure. */
public interface RelayTarget {

  void deliver(int clientIndex, ChoiceDelta delta);

  /** The client cannot take more now: the relay pauses its engine stream. */
  boolean writeQueueFull();

  /** Called once when the client can take more again. */
  void onDrain(Handler<Void> handler);
}
