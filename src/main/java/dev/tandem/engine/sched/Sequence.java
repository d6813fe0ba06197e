package dev.tandem.engine.sched;

import dev.tandem.engine.model.KvStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One choice of a request (or the single sequence of a remote send): its tokens (prompt, then
 * output), the KV pages holding them and how far the KV is computed. The unit the scheduler
 * admits, batches and preempts. Engine thread only.
 */
final class Sequence {
  final RequestState request;
  final int index;
  int[] tokens;
  int length;
  /** KV is valid for positions [0, numComputed). */
  int numComputed;
  int[] pages = new int[4];
  int numPages;
  /** Positions below this were known at admission: computing them counts as prefill. */
  int prefillEnd;
  /** Admission order; the newest running sequence is preempted first. */
  long order;
  /** Tokens planned for the current step. */
  int planned;
  final SplittableRandom rng;
  final OutputStreamer streamer;
  FinishReason finish;

  final StringBuilder pendingText = new StringBuilder();
  final List<Integer> pendingTokens = new ArrayList<>();
  final List<TokenLogprob> pendingLogprobs = new ArrayList<>();

  Sequence(RequestState request, int index, int[] tokens, int length, SplittableRandom rng,
      OutputStreamer streamer) {
    this.request = request;
    this.index = index;
    this.tokens = Arrays.copyOf(tokens, Math.max(length + 16, 16));
    this.length = length;
    this.rng = rng;
    this.streamer = streamer;
  }

  int generated() {
    return length - request.promptLength;
  }

  boolean finished() {
    return finish != null;
  }

  void append(int token) {
    if (length == tokens.length) {
      tokens = Arrays.copyOf(tokens, tokens.length * 2);
    }
    tokens[length++] = token;
  }

  void addPage(int page) {
    if (numPages == pages.length) {
      pages = Arrays.copyOf(pages, pages.length * 2);
    }
    pages[numPages++] = page;
  }

  int slot(int position) {
    return pages[position / KvStore.PAGE_SIZE] * KvStore.PAGE_SIZE + position % KvStore.PAGE_SIZE;
  }

  /** Slots of positions [from, to). */
  int[] slots(int from, int to) {
    int[] s = new int[to - from];
    for (int p = from; p < to; p++) {
      s[p - from] = slot(p);
    }
    return s;
  }

  int[] pageList() {
    return Arrays.copyOf(pages, numPages);
  }

  int[] outputTokens() {
    return Arrays.copyOfRange(tokens, request.promptLength, length);
  }

  @Override
  public String toString() {
    return request.id + "#" + index + "[len=" + length + ", computed=" + numComputed + ", pages="
        + numPages + "]";
  }
}
