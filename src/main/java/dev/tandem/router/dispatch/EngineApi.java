package dev.tandem.router.dispatch;

/** Engine HTTP paths the router calls (reference §3 and §4, plus the builtin engine's release). */
public final class EngineApi {

  public static final String COMPLETIONS = "/v1/completions";
  public static final String PREP_RECV = "/microserving/prep_recv";
  public static final String REMOTE_SEND = "/microserving/remote_send";
  public static final String START_GENERATE = "/microserving/start_generate";
  /** Frees a reservation parked by prep_recv (builtin engines; MLC has none, reference §6 item 12). */
  public static final String RELEASE = "/microserving/release";

  private EngineApi() {}
}
