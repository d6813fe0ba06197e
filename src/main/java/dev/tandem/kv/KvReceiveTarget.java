package dev.tandem.kv;


/** The receiving engine's side of a KV transfer; implemented by the engine, called by the transport. */
public interface KvReceiveTarget {
  /**
   * Writes {@code rows} into {@code slots} if every slot is reserved for {@code requestId} and that
   * request is parked waiting for KV; otherwise writes nothing and throws with the reason. May be
   * called from any thread.
   */
  void accept(String requestId, int[] slots, KvRows rows) throws KvTransferException;

  /**
   * Told of a transfer the transport refused before its rows could reach {@link #accept} (wrong
   * world secret or model, stale PE, damaged rows, ...), so that the engine counts every refusal,
   * not only its own. {@code requestId} is null when the header could not be trusted. Any thread.
   */
  default void refused(String requestId, String reason) {}
}
