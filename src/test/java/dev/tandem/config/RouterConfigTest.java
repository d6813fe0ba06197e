package dev.tandem.config;

import static dev.tandem.config.RouterConfig.*;
import static dev.tandem.config.RouterOptions.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bus.EngineRole;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RouterConfigTest {

  /** Every option of the configuration set to something other than its default. */
  static RouterConfig everyOptionChanged() {
    return new RouterConfig().set(MODEL, "/m").set(MODEL_LIB, "/lib.so")
        .set(ENDPOINT_HOSTS, List.of("a", "b")).set(ENDPOINT_PORTS, List.of(1, 2))
        .set(ENDPOINT_NUM_GPUS, List.of(2, 1))
        .set(ENDPOINT_ROLES, List.of(EngineRole.BOTH, EngineRole.DECODE))
        .set(ENABLE_PREFIX_CACHE, true).set(ENGINE, EngineKind.MLC).set(LOG_DIR, "/var/log/t")
        .set(STARTUP_TIMEOUT, Duration.ofSeconds(7)).set(HEALTH_INTERVAL, Duration.ofMillis(300))
        .set(HEALTH_TIMEOUT, Duration.ofMillis(200)).set(HEALTH_FAILURES, 2)
        .set(LOAD_REPORT_INTERVAL, Duration.ofMillis(300)).set(RESTART_BACKOFF, Duration.ofMillis(50)).set(RESTART_BACKOFF_MAX, Duration.ofSeconds(1))
        .set(RESTART_LIMIT, 9).set(STOP_GRACE, Duration.ofSeconds(3)).set(PYTHON, "/opt/py")
        .set(ENGINE_OVERRIDES, "a=1").set(ENGINE_JVM_OPTS, List.of("-Xmx1g")).set(ENGINE_CDS, false)
        .set(FIXED_WORLD, true).set(REFORM_DRAIN, Duration.ofSeconds(4))
        .set(ROUTER_MODE, RouterMode.ROUND_ROBIN).set(ROUTER_HOST, "0.0.0.0").set(ROUTER_PORT, 9000)
        .set(ROUTER_LOOPS, 3).set(NETWORK_TRANSPORT, NetworkTransport.IO_URING)
        .set(PD_BALANCE_FACTOR, 0.25).set(MAX_ENGINE_ATTEMPTS, 5).set(MAX_PREEMPT_RETRIES, 0).set(MAX_FAILOVERS, 1)
        .set(CONNECT_TIMEOUT, Duration.ofMillis(1500)).set(PREP_RECV_TIMEOUT, Duration.ofSeconds(6))
        .set(REMOTE_SEND_TIMEOUT, Duration.ofSeconds(7)).set(FIRST_CHUNK_TIMEOUT, Duration.ofSeconds(8))
        .set(START_GENERATE_TIMEOUT, Duration.ofSeconds(9)).set(CHUNK_IDLE_TIMEOUT, Duration.ofSeconds(10))
        .set(RELEASE_TIMEOUT, Duration.ofSeconds(11)).set(MAX_CONNECTIONS_PER_ENGINE, 16)
        .set(MAX_BODY_BYTES, 4096).set(RETRY_AFTER_SECONDS, 3).set(BUSY_WAIT, Duration.ZERO)
        .set(REQUEST_TOKEN_IDS, false).set(TOKENIZER_CACHE_MB, 64)
        .set(CHAT_TEMPLATE, "/etc/t.jinja").set(TOOL_CALL_PARSER, "hermes")
        .set(SIM_PROFILE, "a100-llama2-13b").set(POLICY, "cache-aware").set(CACHE_THRESHOLD, 0.25)
        .set(BALANCE_ABS, 8).set(BALANCE_REL, 2.0).set(PD_POLICY, "adaptive").set(PD_SHORT_PROMPT, 64)
        .set(PD_PREFILL_BUSY, 2).set(PD_PREFILL_WAIT, 250)
        .set(API_KEY_FILE, "/etc/tandem/api-keys").set(ADMIN_KEY_FILE, "/etc/tandem/admin-keys")
        .set(MAX_CONCURRENT, 4).set(MAX_QUEUE, 8).set(QUEUE_TIMEOUT, Duration.ofSeconds(2))
        .set(KEY_RPM, 60).set(ADMIN_PORT, 9001).set(KEY_TPM, 10_000).set(REMOVE_GRACE, Duration.ofSeconds(5))
        .set(RouterOptions.DRAIN_TIMEOUT, Duration.ofSeconds(7))
        .set(RouterOptions.ACCESS_LOG, "/var/log/tandem/access.jsonl")
        .set(FLEET_NAME, "blue").set(ClusterOptions.CLUSTER, true).set(ClusterOptions.ATTACH, true)
        .set(ClusterOptions.STOP_REMOTE_ENGINES, true)
        .set(RouterConfig.FLEET_SECRET_FILE, "/etc/tandem/fleet-secret")
        .set(ClusterOptions.CLUSTER_CONFIG, "/etc/tandem/cluster.xml")
        .set(ClusterOptions.CLUSTER_HOST, "10.0.0.5").set(ClusterOptions.CLUSTER_PUBLIC_HOST, "r1")
        .set(ClusterOptions.CLUSTER_PORT, 7000).set(ClusterOptions.CLUSTER_KEY, "/k.pem")
        .set(ClusterOptions.CLUSTER_CERT, "/c.pem").set(ClusterOptions.CLUSTER_TRUST, "/ca.pem");
  }

  @Test
  void defaultsAreMlcRoutersAndSurviveARoundTrip() {
    RouterConfig defaults = new RouterConfig();
    assertEquals(RouterMode.DISAGG, defaults.get(ROUTER_MODE));
    assertEquals("127.0.0.1", defaults.get(ROUTER_HOST));
    assertEquals(8000, defaults.get(ROUTER_PORT));
    assertEquals(List.of("127.0.0.1"), defaults.get(ENDPOINT_HOSTS));
    assertEquals(List.of(8080), defaults.get(ENDPOINT_PORTS));
    assertEquals(List.of(1), defaults.get(ENDPOINT_NUM_GPUS));
    assertEquals(0.0, defaults.get(PD_BALANCE_FACTOR));
    assertEquals(EngineKind.BUILTIN, defaults.get(ENGINE));
    assertNull(defaults.get(MODEL));
    JsonObject json = defaults.toJson();
    assertEquals(RouterConfig.OPTIONS.options().size(), json.size(), "every key, defaults included");
    assertEquals(json, RouterConfig.fromJson(json).toJson());
    assertEquals(defaults, RouterConfig.fromJson(new JsonObject(json.encode())));
  }

  @Test
  void everyOptionSurvivesARoundTripThroughText() {
    RouterConfig config = everyOptionChanged();
    for (Option<?> option : RouterConfig.OPTIONS.options()) {
      assertNotEquals(option.defaultValue(), config.get(option), option + " is changed by the test");
    }
    RouterConfig back = RouterConfig.fromJson(new JsonObject(config.toJson().encodePrettily()));
    assertEquals(config, back);
    for (Option<?> option : RouterConfig.OPTIONS.options()) {
      assertEquals(config.get(option), back.get(option), option.key());
    }
    assertEquals(300, back.toJson().getLong("healthIntervalMs"), "durations in ms, as today");
    assertEquals(new JsonArray().add("both").add("decode"), back.toJson().getJsonArray("endpointRoles"));
    assertEquals("round-robin", back.toJson().getString("routerMode"));
    assertEquals(new RouterConfig(config), config);
    assertNotEquals(new RouterConfig(), back);
  }

  @Test
  void theRouterVerticleGetsEveryRouterSetting() {
    RouterConfig config = everyOptionChanged();
    RouterOptions router = config.routerOptions();
    for (Option<?> option : RouterOptions.OPTIONS.options()) {
      assertEquals(config.get(option), router.get(option), option.key());
    }
    assertEquals(RouterOptions.OPTIONS.options().size(), router.toJson().size());
    assertEquals(router, new RouterOptions(router.toJson()));
    assertThrows(IllegalArgumentException.class, () -> router.get(MODEL), "not a router option");
  }

  @Test
  void withoutAPolicyTheRouterRoutesByCacheOnlyWhenEnginesKeepAPrefixCache() {
    assertEquals("cache-aware", new RouterConfig().set(ENABLE_PREFIX_CACHE, true).routerOptions()
        .get(POLICY));
    assertEquals("least-loaded", new RouterConfig().routerOptions().get(POLICY));
    assertEquals("least-loaded", new RouterConfig().set(ENABLE_PREFIX_CACHE, true)
        .set(POLICY, "least-loaded").routerOptions().get(POLICY));
  }

  @Test
  void eachKeyIsDeclaredOnceAndRouterKeysSitInTheSameFlatObject() {
    List<String> keys = RouterConfig.OPTIONS.options().stream().map(Option::key).toList();
    assertEquals(keys.size(), keys.stream().distinct().count());
    for (Option<?> option : RouterOptions.OPTIONS.options()) {
      assertTrue(RouterConfig.OPTIONS.contains(option), option.key());
    }
    RouterConfig fromFile = RouterConfig.fromJson(new JsonObject().put("model", "m")
        .put("firstChunkTimeoutMs", 300).put("maxEngineAttempts", 2));
    assertEquals(Duration.ofMillis(300), fromFile.routerOptions().get(FIRST_CHUNK_TIMEOUT));
    assertEquals(2, fromFile.routerOptions().get(MAX_ENGINE_ATTEMPTS));
  }

  @Test
  void nullMeansAbsent() {
    RouterConfig config = RouterConfig.fromJson(new JsonObject().put("routerPort", null)
        .put("modelLib", null).put("endpointPorts", null));
    assertEquals(8000, config.get(ROUTER_PORT));
    assertEquals(List.of(8080), config.get(ENDPOINT_PORTS));
    assertFalse(config.isSet(ROUTER_PORT));
    assertEquals(8000, new RouterConfig().set(ROUTER_PORT, 9).set(ROUTER_PORT, null).get(ROUTER_PORT));
  }

  @Test
  void endpointsBroadcastSingleHostAndGpuCountAndStartPesAtPrefixSums() {
    RouterConfig config = new RouterConfig().set(MODEL, "m").set(ENDPOINT_PORTS, List.of(8080, 8081, 8082))
        .set(ENDPOINT_NUM_GPUS, List.of(2, 1, 4));
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
    RouterConfig config = new RouterConfig().set(MODEL, "m").set(ROUTER_MODE, RouterMode.ROUND_ROBIN)
        .set(ENDPOINT_PORTS, List.of(1, 2));
    assertEquals(List.of(EngineRole.BOTH, EngineRole.BOTH),
        config.endpoints().stream().map(EndpointConfig::role).toList());
  }
}
