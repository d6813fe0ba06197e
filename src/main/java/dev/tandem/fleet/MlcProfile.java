package dev.tandem.fleet;

import dev.tandem.config.EngineKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * MLC-LLM engines: exactly the argv and environment MLC's router hands PopenServer (reference 1.1
 * and 1.7), {@code --enable-debug} twice included. Python cannot watch its parent, so when
 * {@code /usr/bin/setpriv} exists the command runs under {@code setpriv --pdeathsig KILL --}: the
 * kernel kills the engine when the router process dies, even by {@code kill -9}.
 */
public final class MlcProfile implements EngineProfile {
  static final Path SETPRIV = Path.of("/usr/bin/setpriv");

  private final String python;
  private final List<String> wrapper;

  /**
   * @param python the Python executable with {@code mlc_llm} installed
   * @param wrapper argv prefix for every engine, e.g. {@link #parentDeathWrapper()}; may be empty
   */
  public MlcProfile(String python, List<String> wrapper) {
    this.python = python;
    this.wrapper = List.copyOf(wrapper);
  }

  /** {@code setpriv --pdeathsig KILL --} where setpriv exists, else nothing. */
  public static List<String> parentDeathWrapper() {
    return Files.isExecutable(SETPRIV) ? List.of(SETPRIV.toString(), "--pdeathsig", "KILL", "--")
        : List.of();
  }

  @Override
  public EngineKind kind() {
    return EngineKind.MLC;
  }

  @Override
  public String healthPath() {
    return "/v1/models";
  }

  @Override
  public EngineCommand command(EngineLaunch launch) {
    List<String> argv = new ArrayList<>();
    argv.add(python);
    argv.add("-m");
    argv.add("mlc_llm");
    argv.add("serve");
    argv.addAll(serveFlags(launch, device(launch.endpoint().peStart())));
    return new EngineCommand(argv, launch.worldEnv()).prefixed(wrapper);
  }

  /**
   * Everything after {@code serve}: the model and PopenServer's flags in PopenServer's order, as
   * the router sets them ({@code mode=server}, debug on, no speculation, radix cache or not).
   */
  static List<String> serveFlags(EngineLaunch launch, String device) {
    List<String> argv = new ArrayList<>();
    argv.add(launch.model());
    if (launch.modelLib() != null) {
      argv.add("--model-lib");
      argv.add(launch.modelLib());
    }
    argv.add("--device");
    argv.add(device);
    argv.add("--enable-debug");
    argv.add("--mode");
    argv.add("server");
    argv.add("--speculative-mode");
    argv.add("disable");
    argv.add("--prefix-cache-mode");
    argv.add(launch.prefixCache() ? "radix" : "disable");
    argv.add("--overrides");
    argv.add(launch.overrides());
    argv.add("--enable-debug");
    argv.add("--host");
    argv.add(launch.endpoint().host());
    argv.add("--port");
    argv.add(Integer.toString(launch.endpoint().port()));
    return argv;
  }
}
