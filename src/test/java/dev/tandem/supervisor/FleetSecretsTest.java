package dev.tandem.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.FleetSecret;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineStatus;
import dev.tandem.config.ConfigException;
import dev.tandem.config.EndpointConfig;
import dev.tandem.config.RouterConfig;
import dev.tandem.fleet.EngineCommand;
import dev.tandem.fleet.EngineSpec;
import dev.tandem.fleet.HealthPolicy;
import dev.tandem.fleet.RestartPolicy;
import dev.tandem.bus.Addresses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Who gets the fleet's secret: builtin engines beyond loopback, in their environment only. */
class FleetSecretsTest {
  @TempDir Path dir;

  @Test
  void builtinEnginesBeyondLoopbackGetTheSecretInTheirEnvironment() throws Exception {
    Path file = Files.writeString(dir.resolve("secret"), "0123456789abcdef0123\nignored\n");
    FleetSecrets secrets = FleetSecrets.load(new RouterConfig()
        .set(RouterConfig.FLEET_SECRET_FILE, file.toString()));
    assertEquals("0123456789abcdef0123", secrets.secret());
    EngineSpec remote = secrets.apply(spec("10.20.30.40", EngineStatus.BUILTIN));
    assertEquals("0123456789abcdef0123", remote.command().extraEnv().get(FleetSecret.ENV));
    assertFalse(String.join(" ", remote.command().argv()).contains("0123456789abcdef0123"),
        "never on the command line");
    assertFalse(secrets.apply(spec("127.0.0.1", EngineStatus.BUILTIN)).command().extraEnv()
        .containsKey(FleetSecret.ENV), "loopback: no secret");
    assertFalse(secrets.apply(spec("10.20.30.40", EngineStatus.MLC)).command().extraEnv()
        .containsKey(FleetSecret.ENV), "MLC engines check no key");
  }

  @Test
  void withoutAFileEachStartMakesItsOwnAndAShortOneIsRefused() throws Exception {
    String a = FleetSecrets.load(new RouterConfig()).secret();
    assertNotEquals(a, FleetSecrets.load(new RouterConfig()).secret());
    assertEquals(64, a.length());
    Path file = Files.writeString(dir.resolve("short"), "abc\n");
    ConfigException e = assertThrows(ConfigException.class, () -> FleetSecrets.load(
        new RouterConfig().set(RouterConfig.FLEET_SECRET_FILE, file.toString())));
    assertTrue(e.getMessage().contains("at least 16"), e.getMessage());
  }

  private static EngineSpec spec(String host, String kind) {
    return new EngineSpec(new EndpointConfig(1, host, 8081, 1, 1, EngineRole.DECODE), "cpu:1",
        new EngineCommand(List.of("java", "-cp", "t.jar", "serve"), Map.of("DJL_OFFLINE", "true")),
        "/health", "/health", Path.of("engine-1.log"), Duration.ofSeconds(30), Duration.ofSeconds(2),
        new HealthPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), 3),
        new RestartPolicy(Duration.ofSeconds(1), Duration.ofSeconds(8), 5), Duration.ofSeconds(1),
        kind, null, Addresses.DEFAULT);
  }
}
