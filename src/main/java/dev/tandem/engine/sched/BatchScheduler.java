package dev.tandem.engine.sched;

import dev.tandem.engine.model.KvStore;
import dev.tandem.engine.kv.PageAllocator;
import dev.tandem.engine.kv.PagedKvCache;
import dev.tandem.engine.kv.RadixPrefixCache;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Continuous batching over the paged KV cache: FCFS admission bounded by max_num_sequence and free
 * pages, one step's batch of decode tokens plus prompt chunks within the prefill budget, and
 * preemption of the newest sequence when a decode needs a page that is not there (the prefix cache
 * is evicted first). Engine thread only.
 */
final class BatchScheduler {
  private final PagedKvCache kv;
  private final PageAllocator pages;
  private final RadixPrefixCache cache;
  private final EngineOptions options;
  private final EngineCounters counters;
  /** Called for a preempted sequence whose KV cannot be recomputed here (received KV). */
  private final Consumer<Sequence> lostKv;

  final ArrayDeque<Sequence> waiting = new ArrayDeque<>();
  /** In admission order: the last one is the newest. */
  final List<Sequence> running = new ArrayList<>();
  private long nextOrder;

  BatchScheduler(PagedKvCache kv, RadixPrefixCache cache, EngineOptions options,
      EngineCounters counters, Consumer<Sequence> lostKv) {
    this.kv = kv;
    this.pages = kv.pages();
    this.cache = cache;
    this.options = options;
    this.counters = counters;
    this.lostKv = lostKv;
  }

  static int pagesFor(int tokens) {
    return (tokens + KvStore.PAGE_SIZE - 1) / KvStore.PAGE_SIZE;
  }

  RadixPrefixCache cache() {
    return cache;
  }

  /** Admits waiting sequences, oldest first, while sequence and KV limits allow. */
  void admit() {
    while (!waiting.isEmpty()) {
      Sequence s = waiting.peekFirst();
      RequestState r = s.request;
      boolean forking = s.index == 0 && r.pendingForks > 0;
      int seqCount = 1 + (forking ? r.pendingForks : 0);
      if (!running.isEmpty() && running.size() + seqCount > options.maxNumSequence()) {
        return;
      }
      int[] matched = new int[0];
      if (cache != null && s.numPages == 0) {
        // a generating sequence needs the logits of its last token, so that one is always computed
        int limit = r.kind == RequestState.Kind.SEND ? s.length : s.length - 1;
        matched = cache.match(s.tokens, limit);
      }
      int target = r.kind == RequestState.Kind.SEND ? s.length : s.length + 1;
      boolean partialLastPage = r.promptLength % KvStore.PAGE_SIZE != 0;
      int forkPages = forking && partialLastPage ? r.pendingForks : 0;
      int need = pagesFor(target) - s.numPages - matched.length + forkPages;
      if (!reserve(need)) {
        for (int p : matched) {
          pages.release(p);
        }
        return;
      }
      waiting.removeFirst();
      for (int p : matched) {
        s.addPage(p);
      }
      int matchedTokens = matched.length * KvStore.PAGE_SIZE;
      if (matchedTokens > s.numComputed) {
        s.numComputed = matchedTokens;
      }
      if (r.prefixMatched < 0) {
        r.prefixMatched = matchedTokens;
      }
      counters.prefixCacheHitTokens.addAndGet(matchedTokens);
      while (s.numPages < pagesFor(target)) {
        s.addPage(pages.allocate());
      }
      if (forkPages > 0) {
        r.forkPages = new int[forkPages];
        for (int i = 0; i < forkPages; i++) {
          r.forkPages[i] = pages.allocate();
        }
      }
      s.prefillEnd = s.length;
      s.order = nextOrder++;
      running.add(s);
    }
  }

  /**
   * Makes {@code need} pages free, evicting the prefix cache if that is enough; false (and nothing
   * evicted) when it is not.
   */
  boolean reserve(int need) {
    int free = pages.numFree();
    if (need <= free) {
      return true;
    }
    if (cache == null || free + cache.evictablePages() < need) {
      return false;
    }
    cache.evict(need - free);
    return pages.numFree() >= need;
  }

  /** A fresh page, evicting the cache if needed; -1 when none can be had. */
  int allocatePage() {
    int p = pages.allocate();
    if (p < 0 && cache != null && cache.evict(1) > 0) {
      p = pages.allocate();
    }
    return p;
  }

  /**
   * This step's batch: every sequence with one token left (decode) and prompt chunks within the
   * prefill budget, oldest first; requests whose client is not keeping up wait. Sets
   * {@link Sequence#planned}.
   */
  List<Sequence> plan() {
    List<Sequence> batch = new ArrayList<>();
    int budget = options.prefillChunkSize();
    for (int i = 0; i < running.size(); i++) {
      Sequence s = running.get(i);
      int remaining = s.length - s.numComputed;
      if (remaining <= 0 || s.request.outputHeld) {
        continue;
      }
      int take;
      if (remaining == 1) {
        take = 1;
      } else {
        if (budget == 0) {
          continue;
        }
        take = Math.min(remaining, budget);
      }
      if (!ensurePages(s, s.numComputed + take)) {
        i--; // s itself was preempted and left the list
        continue;
      }
      if (remaining > 1) {
        budget -= take;
      }
      s.planned = take;
      batch.add(s);
    }
    return batch;
  }

  /** Pages for positions below {@code upTo}, preempting newer sequences; false if s was preempted. */
  private boolean ensurePages(Sequence s, int upTo) {
    while (s.numPages * KvStore.PAGE_SIZE < upTo) {
      int p = allocatePage();
      if (p >= 0) {
        s.addPage(p);
        continue;
      }
      Sequence victim = running.get(running.size() - 1);
      preempt(victim);
      if (victim == s) {
        return false;
      }
    }
    return true;
  }

  /** Takes a running sequence out: requeued at the front with its tokens, or ended if its KV came from elsewhere. */
  void preempt(Sequence s) {
    running.remove(s);
    counters.preemptions.incrementAndGet();
    s.request.preemptions++;
    if (s.request.receivedKv) {
      lostKv.accept(s);
      return;
    }
    releasePages(s);
    if (s.index == 0 && s.request.pendingForks > 0) {
      releaseForkPages(s.request);
    }
    s.numComputed = 0;
    waiting.addFirst(s);
  }

  /** Removes a sequence from the queues (if present) and gives back its pages. */
  void remove(Sequence s) {
    if (!running.remove(s)) {
      waiting.remove(s);
    }
    releasePages(s);
    if (s.index == 0 && s.request.pendingForks > 0) {
      releaseForkPages(s.request);
    }
  }

  /** Gives a sequence's pages back, first caching its fully computed pages. */
  void releasePages(Sequence s) {
    if (cache != null && s.numComputed >= KvStore.PAGE_SIZE) {
      cache.insert(s.tokens, s.numComputed, s.pageList());
    }
    for (int i = 0; i < s.numPages; i++) {
      pages.release(s.pages[i]);
    }
    s.numPages = 0;
  }

  void releaseForkPages(RequestState r) {
    for (int p : r.forkPages) {
      pages.release(p);
    }
    r.forkPages = new int[0];
  }

  /** Makes {@code child} of choice 0 a copy of its parent: shared full pages, a copy of the partial one. */
  void fork(Sequence parent, Sequence child, int forkIndex) {
    int full = parent.length / KvStore.PAGE_SIZE;
    for (int i = 0; i < full; i++) {
      pages.retain(parent.pages[i]);
      child.addPage(parent.pages[i]);
    }
    int partial = parent.length % KvStore.PAGE_SIZE;
    if (partial != 0) {
      int page = parent.request.forkPages[forkIndex];
      kv.copyRows(parent.pages[full] * KvStore.PAGE_SIZE, page * KvStore.PAGE_SIZE, partial);
      child.addPage(page);
    }
    child.numComputed = parent.numComputed;
    child.prefillEnd = parent.prefillEnd;
    child.order = nextOrder++;
    running.add(child);
  }

  /** Admits a sequence that already holds KV (start_generate) ahead of the queue. */
  void enqueueFirst(Sequence s) {
    waiting.addFirst(s);
  }

  void enqueue(Sequence s) {
    waiting.addLast(s);
  }
}
