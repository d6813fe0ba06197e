package dev.tandem.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class FleetViewTest {

  /**
   * An engine whose context shares the supervisor's thread finishes its undeploy before its
   * STOPPED event is delivered: the late event must not put the removed engine back.
   */
  @Test
  void aRemovedEnginesLateEventDoesNotBringItBack() {
    FleetView view = new FleetView();
    view.update(new JsonObject().put("id", 1).put("state", "READY"));
    view.update(new JsonObject().put("id", 2).put("state", "READY"));
    view.forget(2);
    view.update(new JsonObject().put("id", 2).put("state", "STOPPED"));
    assertNull(view.latest(2));
    assertEquals(1, view.toJson().getJsonArray("engines").size());
    view.update(new JsonObject().put("id", 1).put("state", "UNHEALTHY"));
    assertEquals("UNHEALTHY", view.latest(1).getString("state"));
  }
}
