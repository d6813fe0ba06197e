package dev.tandem.router.policy;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * The router's approximate picture of one engine's prefix cache: a radix tree over the token ids
 * the router sent there, at the engine's granularity (whole 16-token KV pages), each node keyed
 * by the chained hash of the path from the root (so a node stands for its whole prefix, as in
 * vLLM's and Dynamo's block hashes). Bounded by the engine's KV capacity in pages; the least
 * recently used pages go first, as in the engine's own cache. Approximate because the engine
 * also evicts for its running requests and serves other clients; {@link #correct} fixes the path
 * of a prompt from what the engine reported. Pure data structure: no I/O, one thread.
 */
public final class PrefixTree {

  public static final int PAGE = 16;
  private static final Boolean PRESENT = Boolean.TRUE;

  /** Access-ordered: iteration starts at the least recently used page. */
  private final LinkedHashMap<Long, Boolean> pages = new LinkedHashMap<>(256, 0.75f, true);
  private int capacityPages;

  public PrefixTree(int capacityPages) {
    this.capacityPages = Math.max(1, capacityPages);
  }

  /** The engine's cache size in pages (from its load reports); shrinking evicts at once. */
  public void capacity(int capacityPages) {
    this.capacityPages = Math.max(1, capacityPages);
    trim();
  }

  public int capacity() {
    return capacityPages;
  }

  /** Pages held. */
  public int size() {
    return pages.size();
  }

  /** Tokens of {@code prompt} the engine probably has cached (whole pages); no LRU update. */
  public int match(int[] prompt) {
    long h = 0;
    int matched = 0;
    for (int page = 0; (page + 1) * PAGE <= prompt.length; page++) {
      h = extend(h, prompt, page);
      if (!pages.containsKey(h)) {
        break;
      }
      matched += PAGE;
    }
    return matched;
  }

  /** The engine now holds every whole page of {@code tokens}: add them, most recent last. */
  public void insert(int[] tokens) {
    long h = 0;
    for (int page = 0; (page + 1) * PAGE <= tokens.length; page++) {
      h = extend(h, tokens, page);
      pages.put(h, PRESENT);
    }
    trim();
  }

  /**
   * The engine reported {@code actualMatched} cached tokens for {@code prompt}: pages of its path
   * beyond that are not there (evicted, or never were), the rest are. Then the prompt is inserted,
   * since the engine computes it now.
   */
  public void correct(int[] prompt, int actualMatched) {
    long h = 0;
    int keep = Math.max(0, actualMatched) / PAGE;
    for (int page = 0; (page + 1) * PAGE <= prompt.length; page++) {
      h = extend(h, prompt, page);
      if (page >= keep) {
        pages.remove(h);
      }
    }
    insert(prompt);
  }

  public void clear() {
    pages.clear();
  }

  private void trim() {
    Iterator<Long> it = pages.keySet().iterator();
    while (pages.size() > capacityPages && it.hasNext()) {
      it.next();
      it.remove();
    }
  }

  /** Chains the hash of the prefix up to page {@code page - 1} with that page's tokens. */
  private static long extend(long h, int[] tokens, int page) {
    long z = h;
    for (int i = page * PAGE; i < (page + 1) * PAGE; i++) {
      z = (z + tokens[i] + 1) * 0x9E3779B97F4A7C15L;
      z ^= z >>> 29;
    }
    z ^= z >>> 32;
    z *= 0xBF58476D1CE4E5B9L;
    return z ^ (z >>> 31);
  }
}
