package dev.tandem.engine.sched;

import dev.tandem.engine.model.KvStore;
import java.util.HashMap;
import java.util.Map;

/**
 * A prep_recv reservation: the request waits, holding KV pages for its whole prompt and first
 * generated token; positions [matched, end) are to be written by a prefill engine. Transfers may
 * arrive on any thread; they and the engine thread's claim/release synchronize on this object.
 */
final class ParkedRequest {
  enum State { WAITING_FOR_KV, CLAIMED, RELEASED }

  final GenerationRequest request;
  final int matched;
  final int end;
  final int[] pages;
  final long deadlineNanos;
  private final Map<Integer, Integer> pageIndex = new HashMap<>();
  private final boolean[] received;
  private int receivedCount;
  private State state = State.WAITING_FOR_KV;

  ParkedRequest(GenerationRequest request, int matched, int end, int[] pages, long deadlineNanos) {
    this.request = request;
    this.matched = matched;
    this.end = end;
    this.pages = pages;
    this.deadlineNanos = deadlineNanos;
    for (int i = matched / KvStore.PAGE_SIZE; i < pages.length; i++) {
      pageIndex.put(pages[i], i);
    }
    this.received = new boolean[end - matched];
  }

  /** Slots of the window [matched, end), in position order. */
  int[] windowSlots() {
    int[] s = new int[end - matched];
    for (int p = matched; p < end; p++) {
      s[p - matched] = pages[p / KvStore.PAGE_SIZE] * KvStore.PAGE_SIZE + p % KvStore.PAGE_SIZE;
    }
    return s;
  }

  /** Window index (position - matched) of a slot, or -1 when the slot is not reserved here. */
  int windowIndexOf(int slot) {
    Integer page = pageIndex.get(slot / KvStore.PAGE_SIZE);
    if (page == null) {
      return -1;
    }
    int position = page * KvStore.PAGE_SIZE + slot % KvStore.PAGE_SIZE;
    return position >= matched && position < end ? position - matched : -1;
  }

  synchronized State state() {
    return state;
  }

  synchronized void setState(State s) {
    state = s;
  }

  /** Caller holds the lock. */
  void markReceived(int windowIndex) {
    if (!received[windowIndex]) {
      received[windowIndex] = true;
      receivedCount++;
    }
  }

  /** Caller holds the lock. Number of positions in [matched, upTo) whose KV has not arrived. */
  int missingBefore(int upTo) {
    int missing = 0;
    for (int i = 0; i < Math.min(upTo, end) - matched; i++) {
      if (!received[i]) {
        missing++;
      }
    }
    return missing;
  }

  synchronized int receivedCount() {
    return receivedCount;
  }
}
