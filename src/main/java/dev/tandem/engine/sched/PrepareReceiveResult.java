package dev.tandem.engine.sched;

/** Answer of prep_recv: where the sender must write, and how much of the prompt was cached. */
public record PrepareReceiveResult(String kvAppendMetadata, int prefixMatchedLength, int promptLength) {}
