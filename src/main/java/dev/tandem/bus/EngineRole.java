package dev.tandem.bus;

/** What the router may use an engine for. */
public enum EngineRole {
  PREFILL, DECODE, BOTH;

  public boolean canPrefill() {
    return this != DECODE;
  }

  public boolean canDecode() {
    return this != PREFILL;
  }
}
