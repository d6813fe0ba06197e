package dev.tandem.fleet;

import dev.tandem.config.EngineKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tandem's CPU engine: {@code tandem serve} in its own JVM, with the flags MLC's engines get,
 * {@code --device cpu:S} and the endpoint's device count as {@code tensor_parallel_shards} (MLC's
 * key for it): the engine computes on cores S .. S + num_gpus - 1, so a fleet's engines split the
 * machine's cores instead of each running threads on all of them. The JVM gets the Vector API
 * module for the model's kernels. The engine exits on its own when the process named by
 * {@code TANDEM_PARENT_PID} (the router) dies.
 */
public final class BuiltinProfile implements EngineProfile {
  /** The engine watches this process and exits when it is gone. */
  public static final String PARENT_PID_ENV = "TANDEM_PARENT_PID";
  public static final String MAIN_CLASS = "dev.tandem.cli.Tandem";
  /** The model's SIMD kernels (an incubator module in JDK 17; the engine falls back to scalar without it). */
  public static final String VECTOR_MODULE = "--add-modules=jdk.incubator.vector";

  private final String java;
  private final List<String> jvmOpts;
  private final String classpath;
  private final long parentPid;
  /**
   * JVM options of a simulated engine unless {@code engineJvmOpts} says otherwise: it computes
   * nothing, so a small heap, the serial collector and the C1 compiler only keep it at about
   * 100 MB and one CPU-second of start-up, and dozens fit on a small machine.
   */
  public static final List<String> SIM_JVM_OPTS = List.of("-Xmx64m", "-Xss512k",
      "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
      "-XX:ReservedCodeCacheSize=32m");

  private final EngineCds cds;
  private final String simProfile;

  /** @param cds the engines' class-data archive, or null for none */
  public BuiltinProfile(String java, List<String> jvmOpts, String classpath, long parentPid,
      EngineCds cds) {
    this(java, jvmOpts, classpath, parentPid, cds, null);
  }

  /** @param simProfile non-null: simulated engines ({@code --device sim:S --sim-profile P}) */
  public BuiltinProfile(String java, List<String> jvmOpts, String classpath, long parentPid,
      EngineCds cds, String simProfile) {
    this.java = java;
    this.jvmOpts = List.copyOf(jvmOpts);
    this.classpath = classpath;
    this.parentPid = parentPid;
    this.cds = cds;
    this.simProfile = simProfile;
  }

  /** The engine JVM options a configuration implies (simulated engines get light defaults). */
  public static List<String> jvmOptions(EngineKind kind, List<String> configured) {
    return kind == EngineKind.SIM && configured.isEmpty() ? SIM_JVM_OPTS : configured;
  }

  /** The {@code java} of the running JVM, so that engines run on the same runtime. */
  public static String javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  @Override
  public EngineKind kind() {
    return simProfile == null ? EngineKind.BUILTIN : EngineKind.SIM;
  }

  @Override
  public String healthPath() {
    return "/health";
  }

  @Override
  public EngineCommand command(EngineLaunch launch) {
    List<String> argv = new ArrayList<>();
    argv.add(java);
    argv.addAll(jvmOpts);
    argv.add(VECTOR_MODULE);
    if (cds != null) {
      argv.addAll(cds.jvmOptions(launch.endpoint().id()));
    }
    // DJL would probe a cloud metadata address and Hazelcast would phone home otherwise.
    argv.add("-Dai.djl.offline=true");
    argv.add("-Dhazelcast.phone.home.enabled=false");
    argv.add("-cp");
    argv.add(classpath);
    argv.add(MAIN_CLASS);
    argv.add("serve");
    // tensor_parallel_shards = the endpoint's device count: the engine's PE range in the world and,
    // for the CPU engine, its core budget (a simulated engine takes the PEs but sleeps).
    argv.addAll(MlcProfile.serveFlags(withCores(launch), device(launch.endpoint().peStart())));
    if (simProfile != null) {
      argv.add("--sim-profile");
      argv.add(simProfile);
    }
    Map<String, String> env = new HashMap<>(launch.worldEnv());
    env.put("DJL_OFFLINE", "true");
    env.put(PARENT_PID_ENV, Long.toString(parentPid));
    return new EngineCommand(argv, env);
  }

  /**
   * The launch with {@code tensor_parallel_shards=num_gpus} first in the extra overrides (the
   * user's may override it). An endpoint of several devices holds that many PEs of the world
   * ({@code S .. S+n-1}), as an MLC engine's tensor-parallel workers would (MLC takes the degree
   * from its model library, the builtin engine from MLC's own override key); the CPU engine also
   * computes on that many cores.
   */
  static EngineLaunch withCores(EngineLaunch launch) {
    String cores = "tensor_parallel_shards=" + launch.endpoint().numGpus();
    String extra = launch.extraOverrides();
    return new EngineLaunch(launch.model(), launch.modelLib(), launch.endpoint(), launch.prefixCache(),
        extra == null || extra.isBlank() ? cores : cores + ";" + extra, launch.world());
  }
}
