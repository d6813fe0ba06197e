package dev.tandem.config;

/** How the router uses the fleet: {@code mlc_llm router --router-mode}. */
public enum RouterMode {
  /** Prefill on one engine, decode on another, KV moved between them. */
  DISAGG("disagg"),
  /** The whole request to the least-loaded engine (MLC's name for it, though it is least-loaded). */
  ROUND_ROBIN("round-robin");

  private final String wireName;

  RouterMode(String wireName) {
    this.wireName = wireName;
  }

  /** The name used on the command line and in JSON. */
  public String wireName() {
    return wireName;
  }

  @Override
  public String toString() {
    return wireName;
  }
}
