package dev.tandem.engine.sched;

import java.util.List;

/**
 * New output of one choice since its last delta.
 *
 * @param logprobs one entry per token in {@code tokenIds}, or null when logprobs are off
 * @param finishReason null until the choice's last delta
 */
public record ChoiceDelta(int index, String text, int[] tokenIds, List<TokenLogprob> logprobs,
    FinishReason finishReason) {}
