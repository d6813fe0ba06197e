package dev.tandem.router.api;

/**
 * How much room a stream's pending client bytes start with ({@link SseOutput}): the most that
 * recent streams wrote in one go, plus an eighth. It grows at once (a buffer that has to grow is
 * copied) and shrinks by a quarter while writes need less than half of it, so answers that
 * alternate between sizes (one token per read, then the last one with the usage chunk) keep the
 * larger room and the figure stays put. A heap buffer's array is zeroed when it is made (Netty
 * skips that only with {@code jdk.internal.misc} opened to it, which the router does not ask
 * for), so a fixed 8 KiB cost every streamed token 8 KiB of zeroed memory when tokens arrive one
 * per engine read, and a short answer that arrives in one read twice its size. Learned across the
 * router's streams, since one stream has written nothing yet when it needs its first buffer: a
 * stale figure costs one growth (a copy) or some unused room, never a wrong answer. Shared by the
 * event loops without a lock: an {@code int} is read and written whole, and it is written only
 * when it moves, so in a steady state the loops do not keep taking its cache line from each
 * other.
 */
final class PendingSize {

  static final int MIN = 256;
  static final int MAX = 64 * 1024;

  private int hint = 1024;

  /** The room to give a new pending buffer. */
  int next() {
    return hint;
  }

  /** A stream wrote {@code bytes} in one go: later buffers start near that. */
  void wrote(int bytes) {
    int wanted = Math.max(MIN, Math.min(MAX, bytes + (bytes >> 3) + 64));
    int current = hint;
    if (wanted > current) {
      hint = wanted;
    } else if (wanted < current >> 1) {
      hint = Math.max(wanted, current - (current >> 2));
    }
  }
}
