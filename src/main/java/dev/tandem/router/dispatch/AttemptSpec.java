package dev.tandem.router.dispatch;

import java.util.ArrayList;
import java.util.List;

/**
 * What one engine attempt generates: the prompt (the original, or original plus tokens already
 * delivered when a choice continues after a preempt), how many choices, the budget, and where
 * each engine choice index goes ({@code routes.get(engineIndex)}). A replay regenerates the
 * original request and skips what was delivered.
 */
public record AttemptSpec(int[] promptIds, int n, Integer maxTokens, List<ChoiceRoute> routes,
    boolean replay, String purpose) {

  public AttemptSpec {
    if (routes.size() != n) {
      throw new IllegalArgumentException("need one route per engine choice");
    }
  }

  /** The first attempt: every choice, the whole budget, identity routes. */
  public static AttemptSpec initial(CompletionJob job) {
    List<ChoiceRoute> routes = new ArrayList<>(job.n());
    for (int i = 0; i < job.n(); i++) {
      routes.add(ChoiceRoute.to(i));
    }
    return new AttemptSpec(job.promptIds(), job.n(), job.maxTokens(), routes, false, "request");
  }
}
