package dev.tandem.world;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.world.WorldProtocol.Registration;
import org.junit.jupiter.api.Test;

/** A fixed world admits nobody once formed, as NVSHMEM; an ordinary one takes a restarted engine back. */
class FixedWorldTest {

  static Registration engine(String member, int peStart, int numPes) {
    return new Registration(member, 4, peStart, numPes, "127.0.0.1", 9000 + peStart);
  }

  @Test
  void aFixedWorldRefusesARestartedMemberAnOrdinaryOneTakesItBack() throws Exception {
    for (boolean fixed : new boolean[] {true, false}) {
      WorldMembership<String> world = new WorldMembership<>(4, fixed);
      world.register(engine("a", 0, 2), "link-a");
      assertFalse(world.formed());
      world.register(engine("b", 2, 2), "link-b");
      assertTrue(world.formed(), "two engines of 2 PEs each fill a world of 4");
      world.leave("b", "link-b"); // engine b died
      if (fixed) {
        WorldMembership.Refusal refusal = assertThrows(WorldMembership.Refusal.class,
            () -> world.register(engine("b2", 2, 2), "link-b2"));
        assertTrue(refusal.getMessage().contains("no late member"), refusal.getMessage());
      } else {
        world.register(engine("b2", 2, 2), "link-b2");
        assertTrue(world.table().complete());
      }
    }
  }
}
