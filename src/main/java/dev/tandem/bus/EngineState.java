package dev.tandem.bus;

/** Lifecycle of one engine child process. */
public enum EngineState {
  STARTING, READY, UNHEALTHY, RESTARTING, STOPPED, FAILED
}
