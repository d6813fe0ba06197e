package dev.tandem.router.dispatch;

import dev.tandem.router.metrics.RequestClock;
import io.vertx.core.Future;
import io.vertx.core.Handler;

/**
 * A request's dispatcher that notes, on the request's {@link RequestClock}, when its first text
 * was generated (the first non-empty delta any attempt relays) and which engine served it (the
 * whole-request or decode engine of the last attempt that chose one). One per request; it only
 * observes, so the flow and the mode's dispatcher run unchanged.
 */
public final class TimedDispatcher implements Dispatcher {

  private final Dispatcher inner;
  private final RequestClock clock;

  public TimedDispatcher(Dispatcher inner, RequestClock clock) {
    this.inner = inner;
    this.clock = clock;
  }

  @Override
  public Future<Void> run(Attempt a) {
    clock.choices(a.job().n());
    RelayTarget target = a.target();
    RelayTarget timed = new RelayTarget() {
      @Override
      public void deliver(int clientIndex, ChoiceDelta delta) {
        if (delta.text() != null && !delta.text().isEmpty()) {
          clock.firstToken();
        }
        target.deliver(clientIndex, delta);
      }

      @Override
      public boolean writeQueueFull() {
        return target.writeQueueFull();
      }

      @Override
      public void onDrain(Handler<Void> handler) {
        target.onDrain(handler);
      }
    };
    Attempt observed = new Attempt(a.job(), a.spec(), a.engineRequestId(), a.excluded(), timed,
        a.result());
    return inner.run(observed).andThen(ar -> {
      Routing routing = a.result().routing();
      if (routing != null) {
        clock.engine(routing.servingEngine());
      }
    });
  }

  @Override
  public boolean canServe() {
    return inner.canServe();
  }
}
