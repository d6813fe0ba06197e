package dev.tandem.router.dispatch;

import dev.tandem.router.upstream.UpstreamException;
import dev.tandem.router.upstream.UsageExtra;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one attempt achieved, filled in by the relay: whether anything reached the client (then a
 * failure can no longer be retried silently), what each choice received, which choices the engine
 * preempted (or left unfinished) and the engine's completion-token count.
 */
public final class AttemptResult {

  /**
   * One client choice's share of an attempt.
   *
   * @param text the text this attempt delivered for the choice
   * @param chunkIds ids of the delivered tokens if every chunk named them, else null
   * @param outputIds every token the engine generated for the choice (its usage record), or null
   * @param promptTail the last prompt tokens of the attempt (decoding context for {@code outputIds})
   * @param finished the choice got its finish reason in this attempt
   */
  public record ChoiceOutcome(int clientIndex, String text, int[] chunkIds, int[] outputIds,
      int[] promptTail, boolean finished) {}

  private final List<ChoiceOutcome> outcomes = new ArrayList<>(1); // most attempts: one choice
  /** Made at the first choice to resume: most attempts have none. */
  private Set<Integer> toResume;
  /** Choices of {@link #toResume} whose engine failed mid-answer (the others were preempted). */
  private Set<Integer> failedOver;
  private UpstreamException failure;
  private int replaysMatched;
  private int replaysDiffered;
  private boolean deliveredAny;
  private boolean preempted;
  private int engineCompletionTokens;
  private UsageExtra engineUsageExtra;
  private Routing routing;

  void delivered() {
    deliveredAny = true;
  }

  void preempted(int clientIndex) {
    preempted = true;
    resume(clientIndex);
  }

  /**
   * The engine failed after this choice had received text: it resumes on another engine like a
   * preempted one (a failover), unless its failovers are spent, then {@code cause} ends it.
   */
  void failedOver(int clientIndex, UpstreamException cause) {
    resume(clientIndex);
    if (failedOver == null) {
      failedOver = new TreeSet<>();
    }
    failedOver.add(clientIndex);
    failure = cause;
  }

  private void resume(int clientIndex) {
    if (toResume == null) {
      toResume = new TreeSet<>();
    }
    toResume.add(clientIndex);
  }

  /** Whether choice {@code clientIndex} is to resume because its engine failed. */
  boolean failedOver(int clientIndex) {
    return failedOver != null && failedOver.contains(clientIndex);
  }

  /** The engine failure behind the failovers of this attempt, or null. */
  UpstreamException failure() {
    return failure;
  }

  /** A replayed choice was checked against what its client had: it matched, or it did not. */
  void replayChecked(boolean matched) {
    if (matched) {
      replaysMatched++;
    } else {
      replaysDiffered++;
    }
  }

  int replaysMatched() {
    return replaysMatched;
  }

  int replaysDiffered() {
    return replaysDiffered;
  }

  void outcome(ChoiceOutcome outcome) {
    outcomes.add(outcome);
  }

  void engineCompletionTokens(int n) {
    engineCompletionTokens = n;
  }

  void engineUsageExtra(UsageExtra extra) {
    engineUsageExtra = extra;
  }

  public boolean deliveredAny() {
    return deliveredAny;
  }

  /** The engine preempted at least one choice (its reservation is gone or useless). */
  public boolean sawPreempt() {
    return preempted;
  }

  /** The choices to resume, in index order. */
  public Set<Integer> toResume() {
    return toResume == null ? Collections.emptySet() : toResume;
  }

  public List<ChoiceOutcome> outcomes() {
    return outcomes;
  }

  public int engineCompletionTokens() {
    return engineCompletionTokens;
  }

  /** How the dispatcher chose engines for this attempt (shown in the debug usage), or null. */
  void routing(Routing routing) {
    this.routing = routing;
  }

  public Routing routing() {
    return routing;
  }

  /** The {@code usage.extra} of the engine that streamed the answer (its own timings), or null. */
  public UsageExtra engineUsageExtra() {
    return engineUsageExtra;
  }
}
