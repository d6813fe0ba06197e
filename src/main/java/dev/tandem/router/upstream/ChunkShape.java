package dev.tandem.router.upstream;

import java.util.Arrays;
import java.util.List;

/**
 * One engine stream's chunk reader, which remembers the bytes of the last per-token chunk. An
 * engine writes the same envelope around every token ({@code {"id":"cmpl-7","choices":[{"index":0,
 * "text":"}, then {@code ","finish_reason":null,"token_ids":[}, then {@code ]}],...}}): when a
 * chunk's bytes outside its text and token ids are those of the last chunk the scanner read in
 * full, only the text and the ids are read, and the rest of the reading is the last chunk's. The
 * bytes are compared, not scanned, so a token's chunk costs about a quarter of a full scan
 * (BENCHMARKS.md, issue 14).
 *
 * <p>This reads what {@link EngineChunk#parse} reads, by construction: the compared bytes are
 * those of a chunk the full scan accepted, and the text and the ids are read by its own code from
 * the same first byte, which must end exactly where the next compared bytes begin (a quote in the
 * text ends the text there, and the bytes that follow are then not the envelope's). Anything else
 * (another choice index, a finish reason, a usage record, logprobs) is read in full, and teaches
 * the reader its shape if it has the per-token one.
 */
final class ChunkShape {

  /** The last learned chunk's bytes, and where its text's and ids' contents lie in them. */
  private byte[] last;
  private int lastLength;
  private int textFrom;
  private int textTo;
  /** -1: the learned chunk's ids were null or absent, so they are part of the compared bytes. */
  private int idsFrom = -1;
  private int idsTo;
  private EngineChunk.Choice choice;
  /** Chunks read as the learned one (for tests: the shortcut is taken). */
  private int rereads;

  /** The chunk in {@code bytes[offset, offset + length)}, as {@link EngineChunk#parse} reads it. */
  EngineChunk read(byte[] bytes, int offset, int length) {
    EngineChunk same = choice == null ? null : reread(bytes, offset, length);
    if (same != null) {
      rereads++;
      return same;
    }
    EngineChunk scanned = ChunkScanner.scan(bytes, offset, length, this);
    return scanned != null ? scanned : EngineChunk.jackson(bytes, offset, length);
  }

  int rereads() {
    return rereads;
  }

  /** Called by the scanner for a chunk of one choice with a text and no usage. */
  void learn(byte[] bytes, int offset, int length, EngineChunk.Choice read, int textAt,
      int textEnd, int idsAt, int idsEnd) {
    if (last == null || last.length < length) {
      last = new byte[Math.max(length, 256)];
    }
    System.arraycopy(bytes, offset, last, 0, length);
    lastLength = length;
    textFrom = textAt - offset;
    textTo = textEnd - offset;
    idsFrom = idsAt < 0 ? -1 : idsAt - offset;
    idsTo = idsEnd - offset;
    choice = read;
  }

  /** Called by the scanner for a chunk of another shape: the next one is read in full. */
  void forget() {
    choice = null;
  }

  /** The chunk read as the learned one with another text and ids, or null if it is not one. */
  private EngineChunk reread(byte[] b, int offset, int length) {
    int end = offset + length;
    ChunkScanner s = new ChunkScanner(b, offset, end);
    boolean idsFirst = idsFrom >= 0 && idsFrom < textFrom;
    String text = null;
    int[] ids = null;
    int at = offset; // where b's next compared bytes start
    int from = 0; // and where they start in the learned chunk
    for (int span = 0; span < (idsFrom >= 0 ? 2 : 1); span++) {
      boolean isText = (span == 0) != idsFirst;
      int spanFrom = isText ? textFrom : idsFrom;
      int n = spanFrom - from;
      if (end - at < n || !Arrays.equals(b, at, at + n, last, from, spanFrom)) {
        return null;
      }
      at += n;
      // read from its opening quote or bracket, the last compared byte
      if (isText) {
        text = s.stringAt(at - 1);
      } else {
        ids = s.idsAt(at - 1);
      }
      if (isText ? text == null : ids == null) {
        return null; // not what the scanner reads: the full scan says what it is
      }
      at = s.at() - 1; // its closing quote or bracket: the first of the next compared bytes
      from = isText ? textTo : idsTo;
    }
    int n = lastLength - from;
    if (end - at != n || !Arrays.equals(b, at, end, last, from, lastLength)) {
      return null;
    }
    return EngineChunk.of(List.of(new EngineChunk.Choice(choice.index(), text,
        choice.finishReason(), ids, null)), null, null);
  }
}
