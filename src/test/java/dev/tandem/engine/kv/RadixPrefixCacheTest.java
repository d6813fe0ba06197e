package dev.tandem.engine.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RadixPrefixCacheTest {
  private final PageAllocator pages = new PageAllocator(8);
  private final RadixPrefixCache cache = new RadixPrefixCache(pages);

  private static int[] tokens(int n, int salt) {
    int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = i < 32 ? i : i * 100 + salt;
    }
    return t;
  }

  private int[] hold(int n) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = pages.allocate();
    }
    return p;
  }

  @Test
  void matchesWholePagesOfTheLongestCachedPrefix() {
    int[] seqPages = hold(3);
    int[] a = tokens(40, 1);
    cache.insert(a, 40, seqPages); // 2 full pages cached, the partial third is not
    for (int p : seqPages) {
      pages.release(p);
    }
    assertEquals(2, cache.cachedPages());
    assertEquals(6, pages.numFree());

    int[] m = cache.match(tokens(50, 2), 50); // shares the first 32 tokens
    assertArrayEquals(new int[] {seqPages[0], seqPages[1]}, m);
    assertEquals(0, cache.evictablePages(), "pages in use are not evictable");
    for (int p : m) {
      pages.release(p);
    }
    assertEquals(0, cache.match(tokens(50, 2), 15).length, "a limit below one page matches nothing");
    int[] one = cache.match(tokens(50, 2), 31);
    assertEquals(1, one.length, "whole pages only");
    pages.release(one[0]);
    assertEquals(2, cache.evictablePages());
  }

  @Test
  void evictsLeastRecentlyUsedLeavesFirst() {
    int[] x = tokens(16, 0);
    int[] y = new int[16];
    java.util.Arrays.fill(y, 7);
    int[] px = hold(1);
    int[] py = hold(1);
    cache.insert(x, 16, px);
    cache.insert(y, 16, py);
    pages.release(px[0]);
    pages.release(py[0]);
    int[] used = cache.match(x, 16); // touch x: y is now least recently used
    pages.release(used[0]);
    assertEquals(1, cache.evict(1));
    assertEquals(1, cache.match(x, 16).length);
    assertEquals(0, cache.match(y, 16).length);
  }

  @Test
  void sharedChunksKeepTheirFirstPage() {
    int[] a = tokens(32, 0);
    int[] p1 = hold(2);
    int[] p2 = hold(2);
    cache.insert(a, 32, p1);
    cache.insert(a, 32, p2); // same tokens: the cache keeps p1, p2 stays the caller's
    for (int p : p2) {
      assertEquals(1, pages.refCount(p));
    }
    for (int p : p1) {
      assertEquals(2, pages.refCount(p));
    }
  }
}
