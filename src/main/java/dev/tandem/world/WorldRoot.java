package dev.tandem.world;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * The builtin engines' world root, run by the supervisor in the router process (the counterpart of
 * NVSHMEM's bootstrap root thread): engines register their PEs and KV addresses with it and are
 * answered with the PE table once all {@code npes} PEs have joined. Stays up while engines run, so
 * that a restarted engine can join again.
 */
public interface WorldRoot extends AutoCloseable {

  /** The 125-integer uid to hand every engine (version value NVSHMEM never uses, secret, address). */
  int[] uid();

  /** The world's PEs: those it formed with, and more once engines were added to a world not fixed. */
  int npes();

  /** PEs whose engines have registered and are still connected. */
  int joinedPes();

  @Override
  void close();

  /**
   * Starts a root on {@code vertx}, listening on {@code bindHost} (random port) for a world of
   * {@code npes} PEs; fails with a {@link WorldException}. Safe on an event loop.
   */
  static Future<WorldRoot> start(Vertx vertx, String bindHost, int npes) {
    return TcpWorldRoot.start(vertx, bindHost, npes, false);
  }

  /**
   * The same; a {@code fixed} world, once formed, refuses every registration, as NVSHMEM admits
   * no late member: an engine that died cannot rejoin, and the world must be re-formed.
   */
  static Future<WorldRoot> start(Vertx vertx, String bindHost, int npes, boolean fixed) {
    return TcpWorldRoot.start(vertx, bindHost, npes, fixed);
  }

  /**
   * The same on a small Vert.x of the root's own, waiting until it listens (for callers outside
   * Vert.x: tests, benchmarks); {@link #close} closes that Vert.x too.
   */
  static WorldRoot start(String bindHost, int npes) throws WorldException {
    return TcpWorldRoot.start(bindHost, npes);
  }
}
