package dev.tandem.engine.sched;

/** Why a choice ended; {@link #wire()} is the OpenAI/MLC {@code finish_reason} string. */
public enum FinishReason {
  STOP("stop"),
  LENGTH("length"),
  /** A request decoding over received KV had to give its KV up; the router may retry it. */
  PREEMPT("preempt");

  private final String wire;

  FinishReason(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }
}
