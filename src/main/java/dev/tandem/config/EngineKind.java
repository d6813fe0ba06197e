package dev.tandem.config;

import java.util.Locale;

/** Which engine server the supervisor launches for each endpoint. */
public enum EngineKind {
  /** Tandem's own CPU engine: {@code tandem serve} in a child JVM, devices {@code cpu:N}. */
  BUILTIN("builtin"),
  /** MLC-LLM: {@code python -m mlc_llm serve}, devices {@code cuda:N}. */
  MLC("mlc");

  private final String wireName;

  EngineKind(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /** The device type engines of this kind are given ({@code --device <type>:<pe_start>}). */
  public String deviceType() {
    return this == BUILTIN ? "cpu" : "cuda";
  }

  public static EngineKind parse(String value) {
    for (EngineKind kind : values()) {
      if (kind.wireName.equals(value.toLowerCase(Locale.ROOT))) {
        return kind;
      }
    }
    throw new ConfigException("engine must be builtin or mlc, not '" + value + "'");
  }

  @Override
  public String toString() {
    return wireName;
  }
}
