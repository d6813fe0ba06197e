package dev.tandem.world.transport;

import dev.tandem.kv.KvTransferException;
import java.net.InetSocketAddress;

/** Where a PE's KV receiver listens; the world's PE table behind it may change when engines restart. */
public interface PeResolver {
  /** The address known now (asking the world root when none is known). */
  InetSocketAddress address(int pe) throws KvTransferException;

  /**
   * Asks the world root again after {@code failed} did not work (the engine may have restarted on
   * a new port); returns the current address, which may equal {@code failed}.
   */
  InetSocketAddress refresh(int pe, InetSocketAddress failed) throws KvTransferException;
}
