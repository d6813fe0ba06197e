package dev.tandem.router.upstream;

import io.netty.util.concurrent.FastThreadLocal;
import java.util.ArrayList;

/**
 * Which engine read an event loop is delivering right now, if any. While an
 * {@link EngineConnection} hands a message of one socket read to its exchange (or what a pause
 * held, in {@link EngineConnection#resume()}), work that should happen once per read rather than
 * once per message can wait for the end of that read ({@link #afterThisRead}): the client output
 * writes every delta the read brought in one write there, with no task queued per read. The
 * connection runs what waited at Netty's end of the read (or when it closes, or at the end of
 * the resume). Outside a delivery nothing waits: the caller schedules its work itself.
 */
public final class EngineReads {

  /** Netty's: an index into the event loop thread's own table. */
  private static final FastThreadLocal<EngineReads> LOOPS = new FastThreadLocal<>() {
    @Override
    protected EngineReads initialValue() {
      return new EngineReads();
    }
  };

  /** What waits for the end of the read being delivered now; null outside a delivery. */
  private ArrayList<Runnable> current;

  private EngineReads() {}

  /**
   * Runs {@code task} on this thread once the engine read being delivered here ends. False when
   * no engine read is being delivered: the task is not taken, and the caller runs or schedules it.
   */
  public static boolean afterThisRead(Runnable task) {
    ArrayList<Runnable> waiting = LOOPS.get().current;
    if (waiting == null) {
      return false;
    }
    waiting.add(task);
    return true;
  }

  static EngineReads ofThisThread() {
    return LOOPS.get();
  }

  /**
   * A message of the read whose waiting work goes to {@code waiting} is being delivered; returns
   * what to give {@link #exit} after it (the delivery this one is nested in, if any).
   */
  ArrayList<Runnable> enter(ArrayList<Runnable> waiting) {
    ArrayList<Runnable> outer = current;
    current = waiting;
    return outer;
  }

  void exit(ArrayList<Runnable> outer) {
    current = outer;
  }

  /**
   * Runs what waited for a read's end, in the order it was given, and empties the list. Every
   * task runs even if one throws; the first exception is then rethrown.
   */
  static void runAll(ArrayList<Runnable> waiting) {
    RuntimeException first = null;
    try {
      for (int i = 0; i < waiting.size(); i++) {
        try {
          waiting.get(i).run();
        } catch (RuntimeException e) {
          first = first == null ? e : first;
        }
      }
    } finally {
      waiting.clear();
    }
    if (first != null) {
      throw first;
    }
  }
}
