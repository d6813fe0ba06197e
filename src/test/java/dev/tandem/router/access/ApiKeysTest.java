package dev.tandem.router.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiKeysTest {

  @Test
  void keysMatchOnlyThemselvesAndCarryTheirNameAndLimits(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("keys");
    Files.writeString(file, "# users\nsk-alice-0123456789  name=alice rpm=60 tpm=1000\n\n"
        + "sk-bob-9876543210 # no attributes\n");
    ApiKeys keys = ApiKeys.load(file, "sk-env-1, sk-env-2 name=ci", false);
    assertEquals(4, keys.size());
    ClientKey alice = keys.match("sk-alice-0123456789").orElseThrow();
    assertEquals(new ClientKey("alice", 60, 1000, false), alice);
    ClientKey bob = keys.match("sk-bob-9876543210").orElseThrow();
    assertTrue(bob.name().matches("key-[0-9a-f]{8}"), "a name that is not the key: " + bob.name());
    assertNull(bob.requestsPerMinute());
    assertEquals("ci", keys.match("sk-env-2").orElseThrow().name());
    assertTrue(keys.match("sk-env-1").isPresent());
    assertFalse(keys.match("sk-alice-012345678").isPresent(), "a prefix is not the key");
    assertFalse(keys.match("sk-alice-0123456789 ").isPresent());
    assertFalse(keys.match("").isPresent());
    assertFalse(keys.match(null).isPresent());
  }

  @Test
  void aMalformedLineNamesItsPlaceButNeverTheKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ApiKeys.of(false, "sk-secret-1 rpm=lots"));
    assertTrue(e.getMessage().contains("line 1"), e.getMessage());
    assertFalse(e.getMessage().contains("sk-secret-1"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ApiKeys.of(false, "sk-secret-1 colour=red"));
  }

  @Test
  void headersGiveTheKeyAsBearerOrAsTheBasicPassword() {
    assertEquals("sk-1", AccessControl.presentedKey("Bearer sk-1"));
    assertEquals("sk-1", AccessControl.presentedKey("bearer   sk-1 "));
    // what a browser sends after the login prompt: user name anything, password the admin key
    assertEquals("sk-1", AccessControl.presentedKey("Basic "
        + java.util.Base64.getEncoder().encodeToString("admin:sk-1".getBytes())));
    assertNull(AccessControl.presentedKey("Bearer "));
    assertNull(AccessControl.presentedKey("Token sk-1"));
    assertNull(AccessControl.presentedKey("Basic %%%"));
    assertNull(AccessControl.presentedKey(null));
  }
}
