package dev.tandem.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** What a bad configuration file is told: one line naming the key and what to do. */
class RouterConfigJsonTest {

  private static String rejected(JsonObject json) {
    return assertThrows(ConfigException.class, () -> RouterConfig.fromJson(json)).getMessage();
  }

  @Test
  void unknownKeysAreRejectedWithTheNearestKnownOne() {
    assertEquals("unknown router configuration key 'routerPrt' (did you mean 'routerPort'?); every"
        + " key is listed in docs/fleet.md and in tandem router --help",
        rejected(new JsonObject().put("routerPrt", 1)));
    assertEquals("unknown router configuration key 'firstChunkTimeout' (did you mean"
        + " 'firstChunkTimeoutMs'?); every key is listed in docs/fleet.md and in tandem router"
        + " --help", rejected(new JsonObject().put("firstChunkTimeout", 1)));
    assertEquals("unknown router configuration key 'zzz'; every key is listed in docs/fleet.md and"
        + " in tandem router --help", rejected(new JsonObject().put("zzz", 1)));
    assertThrows(ConfigException.class, () -> new RouterOptions(new JsonObject().put("model", "m")),
        "the router section alone has no fleet keys");
  }

  @Test
  void wrongTypesNameTheKey() {
    assertEquals("router configuration key 'routerPort' must be a whole number, not '80'",
        rejected(new JsonObject().put("routerPort", "80")));
    assertEquals("router configuration key 'routerPort' must be a whole number, not 80.5",
        rejected(new JsonObject().put("routerPort", 80.5)));
    assertEquals("router configuration key 'routerPort' must be a whole number between -2147483648"
        + " and 2147483647, not 5000000000", rejected(new JsonObject().put("routerPort", 5_000_000_000L)));
    assertEquals("router configuration key 'startupTimeoutMs' must be a whole number of"
        + " milliseconds, not '2s'", rejected(new JsonObject().put("startupTimeoutMs", "2s")));
    assertEquals("router configuration key 'engineCds' must be a boolean, not 'yes'",
        rejected(new JsonObject().put("engineCds", "yes")));
    assertEquals("router configuration key 'endpointPorts' must be an array, not 8080",
        rejected(new JsonObject().put("endpointPorts", 8080)));
    assertEquals("router configuration key 'endpointPorts' must be a whole number, not 'x'",
        rejected(new JsonObject().put("endpointPorts", new JsonArray().add(1).add("x"))));
    assertEquals("router configuration key 'routerMode' must be disagg or round-robin, not 'fast'",
        rejected(new JsonObject().put("routerMode", "fast")));
    assertEquals("router configuration key 'endpointRoles' must be prefill, decode or both, not 'p'",
        rejected(new JsonObject().put("endpointRoles", new JsonArray().add("p"))));
  }

  @Test
  void integralFloatsAreIntegersAsInRequestBodies() {
    RouterConfig config = RouterConfig.fromJson(new JsonObject().put("routerPort", 8001.0)
        .put("startupTimeoutMs", 1500.0));
    assertEquals(8001, config.get(RouterOptions.ROUTER_PORT));
    assertEquals(1500, config.get(RouterConfig.STARTUP_TIMEOUT).toMillis());
  }

  @Test
  void rulesNameTheKey() {
    assertEquals("router configuration key 'maxEngineAttempts' must be at least 1, not 0",
        rejected(new JsonObject().put("maxEngineAttempts", 0)));
    assertEquals("router configuration key 'firstChunkTimeoutMs' must be positive, not 0s",
        rejected(new JsonObject().put("firstChunkTimeoutMs", 0)));
    assertEquals("router configuration key 'pdBalanceFactor' must be in [0, 1), not 1.5 (it is the"
        + " fraction of the prompt's tail prefilled on the decode engine)",
        rejected(new JsonObject().put("pdBalanceFactor", 1.5)));
  }
}
