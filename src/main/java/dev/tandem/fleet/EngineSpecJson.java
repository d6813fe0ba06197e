package dev.tandem.fleet;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineStatus;
import dev.tandem.config.EndpointConfig;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An {@link EngineSpec} as JSON, for the supervisor to hand an endpoint to the {@code tandem node}
 * that serves its host: the whole command and environment (the world's uid included), the
 * policies and the fleet's name. Durations are whole milliseconds. The log file travels as its
 * file name only: the node writes it in its own log folder.
 */
public final class EngineSpecJson {

  private EngineSpecJson() {}

  public static JsonObject toJson(EngineSpec spec) {
    EndpointConfig e = spec.endpoint();
    JsonObject endpoint = new JsonObject().put("id", e.id()).put("host", e.host())
        .put("port", e.port()).put("numGpus", e.numGpus()).put("peStart", e.peStart())
        .put("role", e.role().name());
    JsonObject env = new JsonObject();
    spec.command().extraEnv().forEach(env::put);
    return new JsonObject()
        .put("endpoint", endpoint)
        .put("device", spec.device())
        .put("argv", new JsonArray(new ArrayList<>(spec.command().argv())))
        .put("env", env)
        .put("readinessPath", spec.readinessPath())
        .put("healthPath", spec.healthPath())
        .put("logFileName", spec.logFile().getFileName().toString())
        .put("startupTimeoutMs", spec.startupTimeout().toMillis())
        .put("stopGraceMs", spec.stopGrace().toMillis())
        .put("healthIntervalMs", spec.health().interval().toMillis())
        .put("healthTimeoutMs", spec.health().timeout().toMillis())
        .put("healthFailures", spec.health().failures())
        .put("restartBackoffMs", spec.restart().backoff().toMillis())
        .put("restartBackoffMaxMs", spec.restart().maxBackoff().toMillis())
        .put("restartLimit", spec.restart().limit())
        .put("loadReportIntervalMs", spec.loadReportInterval().toMillis())
        .put("kind", spec.kind())
        .put("world", spec.world() == null ? null : spec.world().toJson())
        .put("fleet", spec.bus().fleet());
  }

  /**
   * The spec of {@link #toJson}, its log file in {@code logDir}. A body that is not such a spec
   * is an {@link IllegalArgumentException} naming what is wrong.
   */
  public static EngineSpec fromJson(JsonObject json, Path logDir) {
    try {
      JsonObject e = json.getJsonObject("endpoint");
      EndpointConfig endpoint = new EndpointConfig(e.getInteger("id"), e.getString("host"),
          e.getInteger("port"), e.getInteger("numGpus"), e.getInteger("peStart"),
          EngineRole.valueOf(e.getString("role")));
      List<String> argv = new ArrayList<>();
      json.getJsonArray("argv").forEach(a -> argv.add(String.valueOf(a)));
      if (argv.isEmpty()) {
        throw new IllegalArgumentException("an empty command");
      }
      Map<String, String> env = new HashMap<>();
      json.getJsonObject("env", new JsonObject()).forEach(kv -> env.put(kv.getKey(),
          String.valueOf(kv.getValue())));
      String logName = Path.of(json.getString("logFileName")).getFileName().toString();
      return new EngineSpec(endpoint, json.getString("device"), new EngineCommand(argv, env),
          json.getString("readinessPath"), json.getString("healthPath"), logDir.resolve(logName),
          millis(json, "startupTimeoutMs"), millis(json, "stopGraceMs"),
          new HealthPolicy(millis(json, "healthIntervalMs"), millis(json, "healthTimeoutMs"),
              json.getInteger("healthFailures")),
          new RestartPolicy(millis(json, "restartBackoffMs"), millis(json, "restartBackoffMaxMs"),
              json.getInteger("restartLimit")),
          millis(json, "loadReportIntervalMs"), json.getString("kind"),
          EngineStatus.World.fromJson(json.getJsonObject("world")),
          Addresses.of(json.getString("fleet")));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not an engine spec: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not an engine spec: " + e, e);
    }
  }

  private static Duration millis(JsonObject json, String key) {
    Long value = json.getLong(key);
    if (value == null) {
      throw new IllegalArgumentException("no " + key);
    }
    return Duration.ofMillis(value);
  }
}
