package dev.tandem.fleet;

import java.util.List;
import java.util.Map;

/**
 * How to start one engine: the argument list (executed directly, never through a shell) and the
 * environment entries added to the router's own environment (overriding, as Popen's extra_env).
 */
public record EngineCommand(List<String> argv, Map<String, String> extraEnv) {
  public EngineCommand {
    argv = List.copyOf(argv);
    extraEnv = Map.copyOf(extraEnv);
  }

  /** The same command with {@code env} added to (or replacing entries of) its environment. */
  public EngineCommand withEnv(Map<String, String> env) {
    Map<String, String> merged = new java.util.HashMap<>(extraEnv);
    merged.putAll(env);
    return new EngineCommand(argv, merged);
  }

  /** The same command run through {@code prefix} (e.g. {@code setpriv --pdeathsig KILL --}). */
  public EngineCommand prefixed(List<String> prefix) {
    java.util.ArrayList<String> wrapped = new java.util.ArrayList<>(prefix);
    wrapped.addAll(argv);
    return new EngineCommand(wrapped, extraEnv);
  }
}
