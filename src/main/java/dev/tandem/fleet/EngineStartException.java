package dev.tandem.fleet;

/**
 * An engine could not be brought up: the message names the engine and, when its process exited,
 * the exit code and its last output lines.
 */
public class EngineStartException extends RuntimeException {
  private final Integer exitCode;

  public EngineStartException(String message) {
    this(message, null);
  }

  public EngineStartException(String message, Integer exitCode) {
    super(message, null, false, false);
    this.exitCode = exitCode;
  }

  /** The engine process's exit code, or null when it did not exit by itself. */
  public Integer exitCode() {
    return exitCode;
  }
}
