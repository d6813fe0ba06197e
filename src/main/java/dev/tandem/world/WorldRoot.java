package dev.tandem.world;

/**
 * The builtin engines' world root, run by the supervisor in the router process (the counterpart of
 * NVSHMEM's bootstrap root thread): engines register their PEs and KV addresses with it and are
 * answered with the PE table once all {@code npes} PEs have joined. Stays up while engines run, so
 * that a restarted engine can join again.
 */
public interface WorldRoot extends AutoCloseable {

  /** The 125-integer uid to hand every engine (version value NVSHMEM never uses, secret, address). */
  int[] uid();

  int npes();

  @Override
  void close();

  /** Starts a root listening on {@code bindHost} (random port) for a world of {@code npes} PEs. */
  static WorldRoot start(String bindHost, int npes) throws WorldException {
    return TcpWorldRoot.start(bindHost, npes);
  }
}
