package dev.tandem.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RouterConfigTest {

  @Test
  void defaultsAreMlcRoutersAndSurviveARoundTrip() {
    RouterConfig defaults = new RouterConfig();
    assertEquals(RouterMode.DISAGG, defaults.getRouterMode());
    assertEquals("127.0.0.1", defaults.getRouterHost());
    assertEquals(8000, defaults.getRouterPort());
    assertEquals(List.of("127.0.0.1"), defaults.getEndpointHosts());
    assertEquals(List.of(8080), defaults.getEndpointPorts());
    assertEquals(List.of(1), defaults.getEndpointNumGpus());
    assertEquals(0.0, defaults.getPdBalanceFactor());
    assertEquals(EngineKind.BUILTIN, defaults.getEngine());
    JsonObject json = defaults.toJson();
    assertEquals(json, RouterConfig.fromJson(json).toJson());
    assertEquals(defaults, RouterConfig.fromJson(new JsonObject(json.encode())));
  }

  @Test
  void everyOptionSurvivesARoundTripThroughText() {
    RouterConfig config = new RouterConfig().setModel("/m").setModelLib("/lib.so")
        .setRouterMode(RouterMode.ROUND_ROBIN).setRouterHost("0.0.0.0").setRouterPort(9000)
        .setEndpointHosts(List.of("a", "b")).setEndpointPorts(List.of(1, 2))
        .setEndpointNumGpus(List.of(2, 1)).setEndpointRoles(List.of(EngineRole.BOTH, EngineRole.DECODE))
        .setEnablePrefixCache(true).setPdBalanceFactor(0.25).setEngine(EngineKind.MLC)
        .setLogDir("/var/log/t").setStartupTimeout(Duration.ofSeconds(7))
        .setHealthInterval(Duration.ofMillis(300)).setHealthTimeout(Duration.ofMillis(200))
        .setHealthFailures(2).setRestartBackoff(Duration.ofMillis(50))
        .setRestartBackoffMax(Duration.ofSeconds(1)).setRestartLimit(9)
        .setStopGrace(Duration.ofSeconds(3)).setPython("/opt/py").setEngineOverrides("a=1")
        .setEngineJvmOpts(List.of("-Xmx1g")).setEngineCds(false);
    RouterConfig back = RouterConfig.fromJson(new JsonObject(config.toJson().encodePrettily()));
    assertEquals(config, back);
    assertEquals(Duration.ofMillis(300), back.getHealthInterval());
    assertEquals(List.of(EngineRole.BOTH, EngineRole.DECODE), back.getEndpointRoles());
    assertNotEquals(new RouterConfig(), back);
  }

  @Test
  void endpointsBroadcastSingleHostAndGpuCountAndStartPesAtPrefixSums() {
    RouterConfig config = new RouterConfig().setModel("m").setEndpointPorts(List.of(8080, 8081, 8082))
        .setEndpointNumGpus(List.of(2, 1, 4));
    List<EndpointConfig> endpoints = config.endpoints();
    assertEquals(List.of(
        new EndpointConfig(0, "127.0.0.1", 8080, 2, 0, EngineRole.PREFILL),
        new EndpointConfig(1, "127.0.0.1", 8081, 1, 2, EngineRole.DECODE),
        new EndpointConfig(2, "127.0.0.1", 8082, 4, 3, EngineRole.DECODE)), endpoints);
    assertEquals(7, config.totalPes());
    assertEquals("http://127.0.0.1:8081", endpoints.get(1).url());
  }

  @Test
  void roundRobinEnginesDoBoth() {
    RouterConfig config = new RouterConfig().setModel("m").setRouterMode(RouterMode.ROUND_ROBIN)
        .setEndpointPorts(List.of(1, 2));
    assertEquals(List.of(EngineRole.BOTH, EngineRole.BOTH),
        config.endpoints().stream().map(EndpointConfig::role).toList());
  }

  @Test
  void jsonErrorsNameTheKey() {
    ConfigException unknown = assertThrows(ConfigException.class,
        () -> RouterConfig.fromJson(new JsonObject().put("routerPrt", 1)));
    assertTrue(unknown.getMessage().startsWith("unknown router configuration key 'routerPrt'"),
        unknown.getMessage());
    ConfigException type = assertThrows(ConfigException.class,
        () -> RouterConfig.fromJson(new JsonObject().put("routerPort", "80")));
    assertEquals("router configuration key 'routerPort' must be a whole number, not '80'",
        type.getMessage());
    ConfigException mode = assertThrows(ConfigException.class,
        () -> RouterConfig.fromJson(new JsonObject().put("routerMode", "fast")));
    assertEquals("router mode must be disagg or round-robin, not 'fast'", mode.getMessage());
  }
}
