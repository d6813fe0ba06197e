package dev.tandem.bench;

/** How prompts are sent: as text (tokenized by the server) or as token id arrays (exact length). */
public enum PromptKind {
  /** Words from a fixed list; the server's tokenizer decides the exact token count. */
  TEXT,
  /** Token ids drawn from {@code [firstId, vocabSize)}; the prompt length is exact. */
  IDS
}
