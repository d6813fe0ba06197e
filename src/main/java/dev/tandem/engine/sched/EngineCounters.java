package dev.tandem.engine.sched;

import java.util.concurrent.atomic.AtomicLong;

/** Cumulative engine counters; written by the engine thread and the API, read by anyone. */
public final class EngineCounters {
  public final AtomicLong requestsSubmitted = new AtomicLong();
  public final AtomicLong requestsFinished = new AtomicLong();
  public final AtomicLong requestsAborted = new AtomicLong();
  public final AtomicLong requestsFailed = new AtomicLong();
  public final AtomicLong prepareReceives = new AtomicLong();
  public final AtomicLong remoteSends = new AtomicLong();
  public final AtomicLong startGenerates = new AtomicLong();
  public final AtomicLong parkedExpired = new AtomicLong();
  public final AtomicLong parkedReleased = new AtomicLong();
  public final AtomicLong preemptions = new AtomicLong();
  public final AtomicLong promptTokens = new AtomicLong();
  public final AtomicLong completionTokens = new AtomicLong();
  public final AtomicLong prefillTokens = new AtomicLong();
  public final AtomicLong decodeTokens = new AtomicLong();
  public final AtomicLong prefixCacheHitTokens = new AtomicLong();
  public final AtomicLong kvReceivedTokens = new AtomicLong();
  public final AtomicLong kvSentTokens = new AtomicLong();
  public final AtomicLong kvTransfersRejected = new AtomicLong();
  public final AtomicLong steps = new AtomicLong();
  /** Nanoseconds spent in forward steps that had prompt tokens / only decode tokens. */
  public final AtomicLong prefillNanos = new AtomicLong();
  public final AtomicLong decodeNanos = new AtomicLong();
}
