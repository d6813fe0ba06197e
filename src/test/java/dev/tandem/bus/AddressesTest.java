package dev.tandem.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class AddressesTest {

  private static List<String> all(Addresses a) {
    return List.of(a.engineStatus(), a.engineLoad(), a.fleetQuery(), a.fleetAdd(), a.fleetRemove(),
        a.completions(), a.chatCompletions(), a.engineControl(2));
  }

  @Test
  void theDefaultFleetKeepsTheAddressesClientsAlreadyUse() {
    assertEquals(List.of("tandem.engine.status", "tandem.engine.load", "tandem.fleet.query",
        "tandem.fleet.add", "tandem.fleet.remove", "tandem.completions", "tandem.chat.completions",
        "tandem.engine.2.control"), all(Addresses.DEFAULT));
    assertSame(Addresses.DEFAULT, Addresses.of("tandem"));
  }

  @Test
  void everyAddressOfAnotherFleetStartsWithItsName() {
    Addresses blue = Addresses.of("team-blue.prod");
    for (String address : all(blue)) {
      assertTrue(address.startsWith("team-blue.prod."), address);
      assertTrue(all(Addresses.DEFAULT).contains("tandem." + address.substring(
          "team-blue.prod.".length())), address);
    }
    assertEquals("team-blue.prod", blue.fleet());
  }

  @Test
  void namesThatWouldMakeAmbiguousAddressesAreRefused() {
    for (String bad : List.of("", " ", "a b", ".x", "x.", "*", "tandem/1")) {
      assertThrows(IllegalArgumentException.class, () -> Addresses.of(bad), bad);
    }
  }
}
