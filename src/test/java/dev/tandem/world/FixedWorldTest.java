package dev.tandem.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.world.WorldProtocol.Registration;
import org.junit.jupiter.api.Test;

/**
 * A fixed world admits nobody once formed, as NVSHMEM; an ordinary one takes a restarted engine
 * back, and grows for an engine added beyond its PEs.
 */
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

  @Test
  void anOrdinaryFormedWorldGrowsForAnEngineAddedBeyondItsPesAFixedOneDoesNot() throws Exception {
    for (boolean fixed : new boolean[] {true, false}) {
      WorldMembership<String> world = new WorldMembership<>(4, fixed);
      Registration added = new Registration("c", 5, 4, 1, "127.0.0.1", 9004);
      WorldMembership.Refusal early = assertThrows(WorldMembership.Refusal.class,
          () -> world.register(added, "link-c"));
      assertTrue(early.getMessage().contains("npes mismatch"), "a forming world never grows");
      world.register(engine("a", 0, 2), "link-a");
      world.register(engine("b", 2, 2), "link-b");
      if (fixed) {
        assertThrows(WorldMembership.Refusal.class, () -> world.register(added, "link-c"));
        assertEquals(4, world.npes());
        continue;
      }
      assertEquals(2, world.register(added, "link-c").size() - 1, "a and b hear the new table");
      assertEquals(5, world.npes());
      assertEquals(5, world.table().npes());
      // inside the world, or leaving a gap below it: not a growth
      WorldMembership.Refusal inside = assertThrows(WorldMembership.Refusal.class,
          () -> world.register(new Registration("d", 6, 3, 3, "127.0.0.1", 9005), "link-d"));
      assertTrue(inside.getMessage().contains("grows only by engines whose PEs start at or beyond 5"),
          inside.getMessage());
      // a member from before the growth, restarted, still holds npes=4 in its environment
      world.leave("b", "link-b");
      world.register(engine("b2", 2, 2), "link-b2");
      assertTrue(world.table().owner(4).orElseThrow().live(), "the added engine stays");
    }
  }
}
