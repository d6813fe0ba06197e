package dev.tandem.bench;

import io.vertx.core.Vertx;
import java.io.PrintStream;
import java.util.Locale;

/**
 * A once-a-second status line on stderr while a run goes on: elapsed time, requests done of those
 * planned, in flight, errors, and the completion rate of the last second. On a terminal the line
 * is rewritten in place; otherwise one line every five seconds, so logs stay short.
 */
public final class ProgressLine {

  private final Vertx vertx;
  private final PrintStream out;
  private final boolean enabled;
  private final boolean inPlace;
  private final String planned;
  private long timerId = -1;
  private long startNanos;
  private long issued;
  private long completed;
  private long errors;
  private int inFlight;
  private long completedAtLastTick;
  private int ticks;

  /** @param planned text shown after the done count, e.g. "200" or "30s" */
  public ProgressLine(Vertx vertx, PrintStream out, boolean enabled, String planned) {
    this.vertx = vertx;
    this.out = out;
    this.enabled = enabled;
    this.inPlace = System.console() != null;
    this.planned = planned;
  }

  void start(long nanos) {
    startNanos = nanos;
    if (enabled) {
      timerId = vertx.setPeriodic(1000, id -> tick());
    }
  }

  void issued() {
    issued++;
    inFlight++;
  }

  void completed(RequestOutcome outcome, int nowInFlight) {
    completed++;
    inFlight = nowInFlight;
    if (!outcome.ok()) {
      errors++;
    }
  }

  void stop() {
    if (timerId >= 0) {
      vertx.cancelTimer(timerId);
      timerId = -1;
      if (inPlace) {
        out.print("\r" + line() + "\n");
        out.flush();
      }
    }
  }

  private void tick() {
    ticks++;
    if (inPlace) {
      out.print("\r" + line());
      out.flush();
    } else if (ticks % 5 == 0) {
      out.println(line());
    }
    completedAtLastTick = completed;
  }

  private String line() {
    double elapsed = (System.nanoTime() - startNanos) / 1e9;
    // completedAtLastTick moves every second, so this is the last second's completion rate.
    return String.format(Locale.ROOT, "[bench] %6.1fs  sent %d  done %d/%s  in flight %d  errors %d  %d req/s   ",
        elapsed, issued, completed, planned, inFlight, errors, completed - completedAtLastTick);
  }
}
