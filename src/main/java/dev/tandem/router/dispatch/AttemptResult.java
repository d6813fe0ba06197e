package dev.tandem.router.dispatch;

import java.util.Set;
import java.util.TreeSet;

/**
 * What one attempt achieved, filled in by the relay as chunks arrive: whether anything reached
 * the client (then a failure can no longer be retried silently), which client choices the engine
 * preempted or left unfinished, and the engine's completion-token count.
 */
public final class AttemptResult {

  private final Set<Integer> toResume = new TreeSet<>();
  private boolean deliveredAny;
  private boolean preempted;
  private int engineCompletionTokens;

  void delivered() {
    deliveredAny = true;
  }

  void preempted(int clientIndex) {
    preempted = true;
    toResume.add(clientIndex);
  }

  /** An interrupted choice (engine failure, non-streaming client) resumes like a preempted one. */
  void interrupted(int clientIndex) {
    toResume.add(clientIndex);
  }

  void engineCompletionTokens(int n) {
    engineCompletionTokens = n;
  }

  public boolean deliveredAny() {
    return deliveredAny;
  }

  /** The engine preempted at least one choice (its reservation is gone or useless). */
  public boolean sawPreempt() {
    return preempted;
  }

  public Set<Integer> toResume() {
    return toResume;
  }

  public int engineCompletionTokens() {
    return engineCompletionTokens;
  }
}
