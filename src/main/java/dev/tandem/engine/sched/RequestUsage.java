package dev.tandem.engine.sched;

import java.util.List;

/**
 * Token counts and timings of one finished request ({@code usage} and, under --enable-debug,
 * {@code usage.extra}).
 *
 * @param prefillTokens prompt positions this engine computed (recomputation after preemption included)
 * @param decodeTokens positions computed while decoding
 * @param prefixMatchedLength prompt tokens served from the prefix cache on first admission
 * @param kvReceivedTokens prompt positions whose KV arrived from a prefill engine
 * @param outputTokenIds generated token ids per choice
 */
public record RequestUsage(int promptTokens, int completionTokens, long prefillTokens,
    long decodeTokens, int prefixMatchedLength, int kvReceivedTokens, int preemptions,
    double ttftSeconds, double endToEndSeconds, List<int[]> outputTokenIds) {

  public int totalTokens() {
    return promptTokens + completionTokens;
  }
}
