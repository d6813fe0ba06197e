package dev.tandem.router.upstream;

import dev.tandem.api.SseParser;
import java.util.Arrays;

/**
 * An engine stream's chunk reader (kept by its connection for the next stream, {@link #forget}
 * between them), which remembers the bytes of the last per-token chunk. An
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
 * the reader its shape if it has the per-token one; a choice's last chunk (with its finish reason)
 * teaches nothing, since no chunk after it has its shape.
 */
final class ChunkShape {

  private static final byte[] DATA = {'d', 'a', 't', 'a', ':'};

  /** The last learned chunk's bytes, and where its text's and ids' contents lie in them. */
  private byte[] last;
  private int lastLength;
  private int textFrom;
  private int textTo;
  /** -1: the learned chunk's ids were null or absent, so they are part of the compared bytes. */
  private int idsFrom = -1;
  private int idsTo;
  private EngineChunk.Choice choice;
  /** Whether the learned chunk's bytes hold no CR or LF, so that they may be compared in SSE. */
  private boolean oneLine;
  /** Where the last reread's chunk ended, and its ids' contents (between the brackets). */
  private int readEnd;
  private int idsAt;
  private int idsEnd;
  /** Chunks read as the learned one (for tests: the shortcut is taken). */
  private int rereads;
  /** The last re-read chunk's text and ids (null: none). */
  private String text;
  private int[] ids;

  /**
   * The chunk in {@code bytes[offset, offset + length)}, as {@link EngineChunk#parse} reads it,
   * as one object (for tests; {@link EngineStream} reads by {@link #tokenTo} and {@link #scan}).
   */
  EngineChunk read(byte[] bytes, int offset, int length) {
    EngineChunk[] read = new EngineChunk[1];
    return tokenTo(bytes, offset, length, c -> read[0] = c) ? read[0] : scan(bytes, offset, length);
  }

  /**
   * Whether the chunk is one of the learned shape, and then it went to {@code sink} as
   * {@link ChunkSink#token}; else nothing did, and {@link #scan} reads it.
   */
  boolean tokenTo(byte[] bytes, int offset, int length, ChunkSink sink) {
    if (choice == null || !reread(bytes, offset, offset + length, true)) {
      return false;
    }
    rereads++;
    sink.token(choice.index(), text, choice.finishReason(), ids);
    return true;
  }

  /**
   * The chunk read in full, as {@link EngineChunk#parse} reads it, learning its shape from it.
   *
   * @throws IllegalArgumentException when it is not a JSON object of the expected shape
   */
  EngineChunk scan(byte[] bytes, int offset, int length) {
    EngineChunk scanned = ChunkScanner.scan(bytes, offset, length, this);
    return scanned != null ? scanned : EngineChunk.jackson(bytes, offset, length);
  }

  int rereads() {
    return rereads;
  }

  /**
   * A per-token chunk of the learned shape framed as one SSE event, {@code data:} (one space or
   * none) then the chunk, then a blank line ({@code \n\n} or {@code \r\n\r\n}), read from
   * {@code bytes[from, end)} without first looking for its line ends, into {@code sink} as
   * {@link ChunkSink#token}: the event's length, blank line included; -1 (and nothing for the
   * sink) where the bytes do not hold such an event whole (the SSE parser then reads it). What
   * this reads is what the parser and {@link #read} would: none of the bytes before the chunk's
   * end is a CR or LF (the compared bytes are a learned one-line chunk's, the text's string
   * refuses control characters, the ids are checked), so the data line ends where the chunk does.
   */
  int eventTo(byte[] bytes, int from, int end, ChunkSink sink) {
    int at = from + DATA.length;
    if (choice == null || !oneLine || end - at < 2
        || !Arrays.equals(bytes, from, at, DATA, 0, DATA.length)) {
      return -1;
    }
    if (bytes[at] == ' ') {
      at++;
    }
    if (!reread(bytes, at, end, false)) {
      return -1;
    }
    int blank = blankLine(bytes, readEnd, end);
    if (blank < 0 || (idsFrom >= 0 && SseParser.lineEnd(bytes, idsAt, idsEnd) >= 0)) {
      return -1;
    }
    rereads++;
    sink.token(choice.index(), text, choice.finishReason(), ids);
    return blank - from;
  }

  /** After the LF LF or CR LF CR LF at {@code at}, or -1. */
  private static int blankLine(byte[] b, int at, int end) {
    if (at + 2 <= end && b[at] == '\n' && b[at + 1] == '\n') {
      return at + 2;
    }
    if (at + 4 <= end && b[at] == '\r' && b[at + 1] == '\n' && b[at + 2] == '\r'
        && b[at + 3] == '\n') {
      return at + 4;
    }
    return -1;
  }

  /** Called by the scanner for a chunk of one choice with a text and no usage. */
  void learn(byte[] bytes, int offset, int length, EngineChunk.Choice read, int textAt,
      int textEnd, int idsAt, int idsEnd) {
    if (read.finishReason() != null) {
      return; // a choice's last chunk: no chunk after it has its shape, the learned one stays
    }
    if (last == null || last.length < length) {
      last = new byte[Math.max(length, 256)];
    }
    System.arraycopy(bytes, offset, last, 0, length);
    lastLength = length;
    textFrom = textAt - offset;
    textTo = textEnd - offset;
    idsFrom = idsAt < 0 ? -1 : idsAt - offset;
    idsTo = idsEnd - offset;
    oneLine = SseParser.lineEnd(last, 0, length) < 0;
    choice = read;
  }

  /**
   * Called by the scanner for a chunk of another shape, and at a new stream's start: the next
   * chunk is read in full.
   */
  void forget() {
    choice = null;
  }

  /**
   * Whether the bytes are a chunk of the learned shape with another {@link #text} and {@link #ids}
   * (read into those): the chunk from {@code offset} ending at {@code end} when {@code exact},
   * else ending where the learned bytes after the last span do, at or before {@code end}.
   */
  private boolean reread(byte[] b, int offset, int end, boolean exact) {
    // A scanner per chunk costs nothing in the router: escape analysis keeps its fields in
    // registers, never allocating it (one kept per stream, tried in session 22, was no cheaper).
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
        return false;
      }
      at += n;
      // read from its opening quote or bracket, the last compared byte
      if (isText) {
        text = s.stringAt(at - 1);
      } else {
        idsAt = at;
        ids = s.idsAt(at - 1);
        idsEnd = s.at() - 1;
      }
      if (isText ? text == null : ids == null) {
        return false; // not what the scanner reads: the full scan says what it is
      }
      at = s.at() - 1; // its closing quote or bracket: the first of the next compared bytes
      from = isText ? textTo : idsTo;
    }
    int n = lastLength - from;
    if ((exact ? end - at != n : end - at < n)
        || !Arrays.equals(b, at, at + n, last, from, lastLength)) {
      return false;
    }
    readEnd = at + n;
    this.text = text;
    this.ids = ids;
    return true;
  }
}
