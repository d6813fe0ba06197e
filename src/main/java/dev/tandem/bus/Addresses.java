package dev.tandem.bus;

/** Event-bus addresses, all in one place. Bodies are JSON so they work on a clustered bus. */
public final class Addresses {
  /** Published by each EngineVerticle on every state change: {@link EngineStatus#toJson()}. */
  public static final String ENGINE_STATUS = "tandem.engine.status";
  /**
   * Published by each READY EngineVerticle once per load-report period:
   * {@link LoadReport#toJson()}. The router balances on these and never polls engines itself.
   */
  public static final String ENGINE_LOAD = "tandem.engine.load";
  /** Request/reply: answers the current status of every engine (supervisor's view). */
  public static final String FLEET_QUERY = "tandem.fleet.query";
  /**
   * Request/reply (supervisor): start one more engine,
   * {@code {"host", "port", "role": "both|prefill|decode", "numGpus"}} (all but {@code port}
   * optional); the reply, once the engine is READY, is its status. In disagg mode the engine joins
   * the builtin KV world with the next PEs. Fails with 409 when the fleet's KV world cannot admit a
   * member (NVSHMEM's, or --fixed-world: a re-form is needed), 400 for a bad body.
   */
  public static final String FLEET_ADD = "tandem.fleet.add";
  /**
   * Request/reply (supervisor): stop engine {@code {"id"}} and forget it; the reply is its last
   * status. 404 for an unknown engine.
   */
  public static final String FLEET_REMOVE = "tandem.fleet.remove";
  /** Request/reply and streaming completions served by the router. */
  public static final String COMPLETIONS = "tandem.completions";
  /** The same for chat completions: bodies, replies and chunks of /v1/chat/completions. */
  public static final String CHAT_COMPLETIONS = "tandem.chat.completions";

  /** Control address of engine {@code id} (restart, stop). */
  public static String engineControl(int id) {
    return "tandem.engine." + id + ".control";
  }

  private Addresses() {}
}
