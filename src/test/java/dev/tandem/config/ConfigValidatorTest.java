package dev.tandem.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure checks; the command-line cases (exit code 2) are in RouterCommandTest. */
class ConfigValidatorTest {

  private static RouterConfig threeEngines() {
    return new RouterConfig().setModel("m").setEndpointPorts(List.of(9101, 9102, 9103));
  }

  private static void assertInvalid(RouterConfig config, String expectedStart) {
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigValidator.validate(config));
    assertTrue(e.getMessage().startsWith(expectedStart), e.getMessage());
    assertTrue(e.getMessage().lines().count() == 1, "one line: " + e.getMessage());
  }

  @Test
  void aGoodConfigurationPasses() {
    assertDoesNotThrow(() -> ConfigValidator.validate(threeEngines()));
  }

  @Test
  void eachProblemHasItsMessage() {
    assertInvalid(new RouterConfig(), "a model folder is required");
    assertInvalid(threeEngines().setEndpointHosts(List.of("a", "b")),
        "--endpoint-hosts (2 values), --endpoint-ports (3) and --endpoint-num-gpus (1) must have the same length");
    assertInvalid(threeEngines().setEndpointNumGpus(List.of(1, 1)),
        "--endpoint-hosts (1 values), --endpoint-ports (3) and --endpoint-num-gpus (2)");
    assertInvalid(threeEngines().setEndpointRoles(List.of(EngineRole.PREFILL, EngineRole.DECODE)),
        "--endpoint-roles has 2 values but --endpoint-ports has 3");
    assertInvalid(new RouterConfig().setModel("m"), "disagg mode needs at least two endpoints");
    assertInvalid(threeEngines().setEndpointRoles(List.of(EngineRole.DECODE)),
        "disagg mode needs one endpoint that can prefill and another that can decode");
    assertInvalid(new RouterConfig().setModel("m").setEndpointPorts(List.of(1, 2))
        .setEndpointRoles(List.of(EngineRole.PREFILL, EngineRole.PREFILL)),
        "disagg mode needs one endpoint that can prefill and another that can decode");
    assertInvalid(threeEngines().setPdBalanceFactor(1.0), "--pd-balance-factor must be in [0, 1), not 1.0");
    assertInvalid(threeEngines().setPdBalanceFactor(-0.1), "--pd-balance-factor must be in [0, 1), not -0.1");
    assertInvalid(threeEngines().setPdBalanceFactor(Double.NaN), "--pd-balance-factor must be in [0, 1)");
    assertInvalid(threeEngines().setEndpointPorts(List.of(9101, 9102, 9101)),
        "port 9101 is given twice (endpoint 0 and endpoint 2)");
    assertInvalid(threeEngines().setRouterPort(9102), "port 9102 is given twice (the router and endpoint 1)");
    assertInvalid(threeEngines().setEndpointPorts(List.of(9101, 0, 9103)),
        "--endpoint-ports values must be between 1 and 65535, not 0");
    assertInvalid(threeEngines().setEndpointNumGpus(List.of(0)), "--endpoint-num-gpus values must be at least 1");
    assertInvalid(threeEngines().setHealthInterval(java.time.Duration.ZERO), "--health-interval must be positive");
  }

  @Test
  void roundRobinWithOneEngineIsFine() {
    assertDoesNotThrow(() -> ConfigValidator.validate(new RouterConfig().setModel("m")
        .setRouterMode(RouterMode.ROUND_ROBIN)));
  }
}
