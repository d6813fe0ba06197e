package dev.tandem.fleet;

import static dev.tandem.config.RouterConfig.ENGINE;
import static dev.tandem.config.RouterConfig.ENGINE_JVM_OPTS;
import static dev.tandem.config.RouterConfig.PYTHON;
import static dev.tandem.config.RouterConfig.SIM_PROFILE;

import dev.tandem.config.EngineKind;
import dev.tandem.config.RouterConfig;

/** Which program an engine is and how to talk to it about its health. */
public interface EngineProfile {

  /** {@code builtin}, {@code sim} or {@code mlc}. */
  EngineKind kind();

  /** The argv and added environment of one engine. */
  EngineCommand command(EngineLaunch launch);

  /** The device string engine {@code peStart} gets, e.g. {@code cuda:2} or {@code cpu:2}. */
  default String device(int peStart) {
    return kind().deviceType() + ":" + peStart;
  }

  /** Polled until it answers 200 after a start (MLC's readiness probe). */
  default String readinessPath() {
    return "/v1/models";
  }

  /** Polled while the engine runs. MLC engines have no {@code /health}, so they get /v1/models. */
  String healthPath();

  /** The profile for a router configuration; {@code cds} (builtin engines) may be null. */
  static EngineProfile of(RouterConfig config, EngineCds cds) {
    return switch (config.get(ENGINE)) {
      case MLC -> new MlcProfile(config.get(PYTHON), MlcProfile.parentDeathWrapper());
      case BUILTIN -> new BuiltinProfile(BuiltinProfile.javaExecutable(),
          config.get(ENGINE_JVM_OPTS), TandemClasspath.resolve(), ProcessHandle.current().pid(),
          cds);
      case SIM -> new BuiltinProfile(BuiltinProfile.javaExecutable(),
          BuiltinProfile.jvmOptions(EngineKind.SIM, config.get(ENGINE_JVM_OPTS)),
          TandemClasspath.resolve(), ProcessHandle.current().pid(), cds, config.get(SIM_PROFILE));
    };
  }
}
