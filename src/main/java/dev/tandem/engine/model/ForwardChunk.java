package dev.tandem.engine.model;

/**
 * One sequence's share of a forward step: {@code tokens} at positions
 * {@code startPos .. startPos + tokens.length - 1}. {@code slots[p]} is the KV slot of position
 * {@code p} for every {@code p < startPos + tokens.length} (earlier positions are read by attention,
 * this chunk's positions are written). When {@code wantLogits} the step returns the logits of the
 * chunk's last token.
 */
public record ForwardChunk(int[] tokens, int startPos, int[] slots, boolean wantLogits) {}
