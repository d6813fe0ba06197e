package dev.tandem.router.api;

import dev.tandem.api.JsonBytes;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * An event loop's pending client bytes: one heap writer per thread, holding the events of one
 * {@link SseOutput} at a time (its {@link #owner}) until that output writes them to its socket.
 * Deltas rendered into a plain array cost a copy of their bytes; rendered into each stream's own
 * Netty buffer, every delta paid Netty's checks of that buffer's state and bounds, 3% of the
 * loop's time for 64-token answers. Everything one engine read brings belongs to one output, so
 * the owner rarely changes before its flush; when another output writes first, the owner's
 * bytes go out first ({@link SseOutput#take}), so no output ever sends another's bytes.
 */
final class LoopPending {

  /** Netty's: an index into the event loop thread's own table, not a ThreadLocal's hash probe. */
  private static final FastThreadLocal<LoopPending> LOOPS = new FastThreadLocal<>() {
    @Override
    protected LoopPending initialValue() {
      return new LoopPending();
    }
  };
  /** Beyond this much room a thread's writer is not kept (after a huge answer). */
  private static final int MAX_KEPT = 256 * 1024;

  JsonBytes bytes = JsonBytes.writer();
  /** Whose bytes {@link #bytes} holds, or null when it is empty. */
  SseOutput owner;

  static LoopPending ofThisThread() {
    return LOOPS.get();
  }

  /** Empties it for the next owner (a writer grown beyond {@link #MAX_KEPT} is dropped). */
  void clear() {
    owner = null;
    if (bytes.capacity() > MAX_KEPT) {
      bytes = JsonBytes.writer();
    } else {
      bytes.reset();
    }
  }
}
