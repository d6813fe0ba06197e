package dev.tandem.config;

import static dev.tandem.config.RouterConfig.ENDPOINT_HOSTS;
import static dev.tandem.config.RouterConfig.ENDPOINT_NUM_GPUS;
import static dev.tandem.config.RouterConfig.ENDPOINT_PORTS;
import static dev.tandem.config.RouterConfig.ENDPOINT_ROLES;
import static dev.tandem.config.RouterConfig.HEALTH_INTERVAL;
import static dev.tandem.config.RouterConfig.MODEL;
import static dev.tandem.config.RouterConfig.RESTART_BACKOFF;
import static dev.tandem.config.RouterConfig.RESTART_BACKOFF_MAX;
import static dev.tandem.config.RouterOptions.PD_BALANCE_FACTOR;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The rules: each option's own (checked when it is set) and those across options
 * ({@link ConfigValidator}); the command-line cases (exit code 2) are in RouterCommandTest.
 */
class ConfigValidatorTest {

  private static RouterConfig threeEngines() {
    return new RouterConfig().set(MODEL, "m").set(ENDPOINT_PORTS, List.of(9101, 9102, 9103));
  }

  private static void assertInvalid(RouterConfig config, String expectedStart) {
    assertRejected(() -> ConfigValidator.validate(config), expectedStart);
  }

  private static void assertRejected(Executable setting, String expectedStart) {
    ConfigException e = assertThrows(ConfigException.class, setting);
    assertTrue(e.getMessage().startsWith(expectedStart), e.getMessage());
    assertEquals(1, e.getMessage().lines().count(), "one line: " + e.getMessage());
  }

  @Test
  void aGoodConfigurationPasses() {
    assertDoesNotThrow(() -> ConfigValidator.validate(threeEngines()));
  }

  @Test
  void rulesAcrossOptionsAreCheckedByTheValidator() {
    assertInvalid(new RouterConfig(), "a model folder is required");
    assertInvalid(threeEngines().set(ENDPOINT_HOSTS, List.of("a", "b")),
        "--endpoint-hosts (2 values), --endpoint-ports (3) and --endpoint-num-gpus (1) must have the same length");
    assertInvalid(threeEngines().set(ENDPOINT_NUM_GPUS, List.of(1, 1)),
        "--endpoint-hosts (1 values), --endpoint-ports (3) and --endpoint-num-gpus (2)");
    assertInvalid(threeEngines().set(ENDPOINT_ROLES, List.of(EngineRole.PREFILL, EngineRole.DECODE)),
        "--endpoint-roles has 2 values but --endpoint-ports has 3");
    assertInvalid(new RouterConfig().set(MODEL, "m"), "disagg mode needs at least two endpoints");
    assertInvalid(threeEngines().set(ENDPOINT_ROLES, List.of(EngineRole.DECODE)),
        "disagg mode needs one endpoint that can prefill and another that can decode");
    assertInvalid(new RouterConfig().set(MODEL, "m").set(ENDPOINT_PORTS, List.of(1, 2))
        .set(ENDPOINT_ROLES, List.of(EngineRole.PREFILL, EngineRole.PREFILL)),
        "disagg mode needs one endpoint that can prefill and another that can decode");
    assertInvalid(threeEngines().set(ENDPOINT_PORTS, List.of(9101, 9102, 9101)),
        "port 9101 is given twice (endpoint 0 and endpoint 2)");
    assertInvalid(threeEngines().set(ROUTER_PORT, 9102),
        "port 9102 is given twice (the router and endpoint 1)");
    assertInvalid(threeEngines().set(RESTART_BACKOFF, Duration.ofSeconds(40)),
        "--restart-backoff-max (restartBackoffMaxMs) must not be below --restart-backoff");
  }

  @Test
  void eachOptionsOwnRuleIsCheckedWhenItIsSetAndTheOldValueStays() {
    RouterConfig config = threeEngines();
    assertRejected(() -> config.set(PD_BALANCE_FACTOR, 1.0),
        "--pd-balance-factor must be in [0, 1), not 1.0 (it is the fraction");
    assertRejected(() -> config.set(PD_BALANCE_FACTOR, -0.1), "--pd-balance-factor must be in [0, 1), not -0.1");
    assertRejected(() -> config.set(PD_BALANCE_FACTOR, Double.NaN), "--pd-balance-factor must be in [0, 1)");
    assertRejected(() -> config.set(ENDPOINT_PORTS, List.of(9101, 0, 9103)),
        "--endpoint-ports values must be between 1 and 65535, not 0");
    assertRejected(() -> config.set(ENDPOINT_PORTS, List.of()), "--endpoint-ports needs at least one value");
    assertRejected(() -> config.set(ENDPOINT_NUM_GPUS, List.of(0)),
        "--endpoint-num-gpus values must be at least 1, not 0");
    assertRejected(() -> config.set(HEALTH_INTERVAL, Duration.ZERO), "--health-interval must be positive");
    assertRejected(() -> config.set(RESTART_BACKOFF_MAX, Duration.ofMillis(-1)),
        "--restart-backoff-max must be positive");
    assertRejected(() -> config.set(MODEL, " "), "model must not be empty");
    assertEquals(0.0, config.get(PD_BALANCE_FACTOR));
    assertEquals(List.of(9101, 9102, 9103), config.get(ENDPOINT_PORTS));
    assertDoesNotThrow(() -> ConfigValidator.validate(config));
  }

  @Test
  void roundRobinWithOneEngineIsFine() {
    assertDoesNotThrow(() -> ConfigValidator.validate(new RouterConfig().set(MODEL, "m")
        .set(ROUTER_MODE, RouterMode.ROUND_ROBIN)));
  }
}
