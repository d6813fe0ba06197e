package dev.tandem.fleet;

import static dev.tandem.config.RouterConfig.FIXED_WORLD;
import static dev.tandem.config.RouterConfig.LOAD_REPORT_INTERVAL;
import static dev.tandem.config.RouterConfig.STARTUP_TIMEOUT;
import static dev.tandem.config.RouterConfig.STOP_GRACE;

import dev.tandem.bus.Addresses;
import dev.tandem.bus.EngineStatus;
import dev.tandem.config.EndpointConfig;
import dev.tandem.config.EngineKind;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything one {@link EngineVerticle} needs, fixed for its lifetime: restarts reuse the same
 * command and environment, so a restarted engine rejoins the same world.
 *
 * @param device the device string the engine was given ({@code cpu:1}, {@code cuda:1})
 * @param readinessPath polled after a start until it answers 200
 * @param healthPath polled while the engine runs
 * @param startupTimeout how long a start (or restart) may take to become ready
 * @param stopGrace time between SIGTERM and SIGKILL
 * @param loadReportInterval how often the engine's load is read and published (zero: never)
 * @param kind the engine program ({@code builtin}, {@code mlc}), published with every status
 * @param world the world the command makes the engine join, or null for none
 * @param bus the addresses of the fleet the engine belongs to (status, load, control)
 */
public record EngineSpec(EndpointConfig endpoint, String device, EngineCommand command,
    String readinessPath, String healthPath, Path logFile, Duration startupTimeout,
    Duration stopGrace, HealthPolicy health, RestartPolicy restart, Duration loadReportInterval,
    String kind, EngineStatus.World world, Addresses bus) {

  /** A builtin engine in no world, in the default fleet. */
  public EngineSpec(EndpointConfig endpoint, String device, EngineCommand command,
      String readinessPath, String healthPath, Path logFile, Duration startupTimeout,
      Duration stopGrace, HealthPolicy health, RestartPolicy restart, Duration loadReportInterval) {
    this(endpoint, device, command, readinessPath, healthPath, logFile, startupTimeout, stopGrace,
        health, restart, loadReportInterval, EngineStatus.BUILTIN, null, Addresses.DEFAULT);
  }

  /** The spec for one endpoint of a fleet, with the command built by {@code profile}. */
  public static EngineSpec of(EngineProfile profile, EngineLaunch launch, Path logDir,
      dev.tandem.config.RouterConfig config) {
    EndpointConfig endpoint = launch.endpoint();
    return new EngineSpec(endpoint, profile.device(endpoint.peStart()), profile.command(launch),
        profile.readinessPath(), profile.healthPath(),
        logDir.resolve("engine-" + endpoint.id() + ".log"), config.get(STARTUP_TIMEOUT),
        config.get(STOP_GRACE), HealthPolicy.of(config), RestartPolicy.of(config),
        config.get(LOAD_REPORT_INTERVAL), profile.kind().wireName(), launch.world() == null ? null
            : new EngineStatus.World(0, profile.kind() == EngineKind.MLC || config.get(FIXED_WORLD)),
        config.addresses());
  }

  /** The same spec with another command (another environment, another parent). */
  public EngineSpec withCommand(EngineCommand other) {
    return new EngineSpec(endpoint, device, other, readinessPath, healthPath, logFile,
        startupTimeout, stopGrace, health, restart, loadReportInterval, kind, world, bus);
  }

  /** {@code engine 1 (decode, 127.0.0.1:8081, cpu:1)}, for logs and error messages. */
  public String describe() {
    String base = endpoint.describe();
    return base.substring(0, base.length() - 1) + ", " + device + ")";
  }
}
