package dev.tandem.router;

/** How the router spreads requests over engines ({@code --router-mode} of {@code mlc_llm router}). */
public enum RouterMode {
  /** The whole request to the least-loaded READY engine, ties rotated (MLC's name for it). */
  ROUND_ROBIN("round-robin"),
  /** Prefill on a prefill engine, KV shipped to a decode engine that streams the answer. */
  DISAGG("disagg");

  private final String cliName;

  RouterMode(String cliName) {
    this.cliName = cliName;
  }

  /** The spelling used on the command line and in JSON config. */
  public String cliName() {
    return cliName;
  }

  public static RouterMode parse(String s) {
    for (RouterMode m : values()) {
      if (m.cliName.equalsIgnoreCase(s) || m.name().equalsIgnoreCase(s)) {
        return m;
      }
    }
    throw new IllegalArgumentException("router mode must be disagg or round-robin, got '" + s + "'");
  }
}
