package dev.tandem.config;

/** Which engine server the supervisor launches for each endpoint. */
public enum EngineKind {
  /** Tandem's own CPU engine: {@code tandem serve} in a child JVM, devices {@code cpu:N}. */
  BUILTIN("builtin"),
  /** MLC-LLM: {@code python -m mlc_llm serve}, devices {@code cuda:N}. */
  MLC("mlc"),
  /**
   * Tandem's engine over a simulated GPU ({@code tandem serve --device sim:N --sim-profile P}):
   * GPU-like timing and KV capacity from a profile, light enough for dozens per machine.
   */
  SIM("sim");

  private final String wireName;

  EngineKind(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /** The device type engines of this kind are given ({@code --device <type>:<pe_start>}). */
  public String deviceType() {
    return switch (this) {
      case BUILTIN -> "cpu";
      case SIM -> "sim";
      case MLC -> "cuda";
    };
  }

  @Override
  public String toString() {
    return wireName;
  }
}
