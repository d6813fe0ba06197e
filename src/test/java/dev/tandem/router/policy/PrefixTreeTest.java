package dev.tandem.router.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PrefixTreeTest {

  static int[] tokens(int seed, int n) {
    int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = (seed * 7919 + i * 31) % 1000;
    }
    return t;
  }

  static int[] concat(int[] a, int[] b) {
    int[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  @Test
  void matchesWholePagesOfTheLongestInsertedPrefix() {
    PrefixTree tree = new PrefixTree(100);
    int[] system = tokens(1, 40);
    tree.insert(concat(system, tokens(2, 30)));
    assertEquals(32, tree.match(concat(system, tokens(3, 30)))); // 40 shared -> 2 whole pages
    assertEquals(64, tree.match(concat(system, tokens(2, 30)))); // 70 tokens -> 4 whole pages
    assertEquals(0, tree.match(tokens(9, 70)));
    assertEquals(0, tree.match(tokens(1, 10))); // shorter than a page
  }

  @Test
  void aDifferentEarlyTokenMatchesNothingAfterIt() {
    PrefixTree tree = new PrefixTree(100);
    int[] a = tokens(1, 64);
    tree.insert(a);
    int[] b = a.clone();
    b[20] = 999;
    assertEquals(16, tree.match(b));
  }

  @Test
  void leastRecentlyUsedPagesAreEvictedAtCapacity() {
    PrefixTree tree = new PrefixTree(4);
    int[] old = tokens(1, 64);
    int[] recent = tokens(2, 64);
    tree.insert(old);
    tree.insert(recent);
    assertEquals(4, tree.size());
    assertEquals(0, tree.match(old));
    assertEquals(64, tree.match(recent));
    tree.capacity(2);
    assertEquals(2, tree.size());
  }

  @Test
  void engineReportsCorrectThePath() {
    PrefixTree tree = new PrefixTree(100);
    int[] p = tokens(1, 96);
    tree.insert(p);
    int[] next = concat(Arrays.copyOf(p, 64), tokens(5, 64)); // the router predicts 64
    assertEquals(64, tree.match(next));
    tree.correct(next, 16); // the engine had evicted all but one page
    assertEquals(16, tree.match(concat(Arrays.copyOf(p, 64), tokens(6, 40))) >= 16 ? 16 : -1);
    assertEquals(next.length / 16 * 16, tree.match(next)); // and now holds the new prompt
  }
}
