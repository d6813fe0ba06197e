package dev.tandem.engine.sched;

import java.util.List;

/** Log-probability of one emitted token and of the {@code top} most likely alternatives. */
public record TokenLogprob(int tokenId, String token, double logprob, List<Alternative> top) {

  public record Alternative(int tokenId, String token, double logprob) {}
}
