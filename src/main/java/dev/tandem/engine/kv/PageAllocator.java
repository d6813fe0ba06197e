package dev.tandem.engine.kv;

/**
 * Hands out KV pages and counts their holders (sequences, parked requests, the prefix cache). A
 * page returns to the free list when its last holder releases it. Not thread-safe: owned by the
 * engine thread.
 */
public final class PageAllocator {
  private final int[] refCounts;
  private final int[] freeStack;
  private int freeTop;

  public PageAllocator(int numPages) {
    if (numPages <= 0) {
      throw new IllegalArgumentException("numPages must be positive: " + numPages);
    }
    refCounts = new int[numPages];
    freeStack = new int[numPages];
    // lowest page ids first, so fresh engines fill the cache from slot 0 (easier to read in logs)
    for (int i = 0; i < numPages; i++) {
      freeStack[i] = numPages - 1 - i;
    }
    freeTop = numPages;
  }

  public int numPages() {
    return refCounts.length;
  }

  public int numFree() {
    return freeTop;
  }

  /** A fresh page with one holder, or -1 when none is free. */
  public int allocate() {
    if (freeTop == 0) {
      return -1;
    }
    int page = freeStack[--freeTop];
    refCounts[page] = 1;
    return page;
  }

  public void retain(int page) {
    if (refCounts[page] <= 0) {
      throw new IllegalStateException("retain of free page " + page);
    }
    refCounts[page]++;
  }

  /** Drops one holder; returns true when the page became free. */
  public boolean release(int page) {
    int c = refCounts[page];
    if (c <= 0) {
      throw new IllegalStateException("release of free page " + page);
    }
    refCounts[page] = c - 1;
    if (c == 1) {
      freeStack[freeTop++] = page;
      return true;
    }
    return false;
  }

  public int refCount(int page) {
    return refCounts[page];
  }
}
