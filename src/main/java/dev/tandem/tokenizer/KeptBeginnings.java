package dev.tandem.tokenizer;

/**
 * What a tokenizer that keeps the ids of long prompts' beginnings has done ({@link PrefixIds}):
 * how many it keeps and their chars, and how many long prompts with cut points found a kept
 * beginning of theirs and how many did not (a first turn, or a history dropped for room).
 */
public record KeptBeginnings(long kept, long chars, long found, long missed) {}
