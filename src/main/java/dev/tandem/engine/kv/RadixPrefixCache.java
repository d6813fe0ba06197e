package dev.tandem.engine.kv;

import dev.tandem.engine.model.KvStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Prefix cache over whole KV pages: a trie whose edges are 16-token chunks and whose nodes own one
 * page each (the cache holds one reference on it). A new sequence reuses the pages of its longest
 * cached prefix, so matches are multiples of 16 tokens. When pages run short, leaves held by
 * nobody but the cache are evicted, least recently used first. Not thread-safe: engine thread only.
 */
public final class RadixPrefixCache {
  private final PageAllocator allocator;
  private final Node root = new Node(null, null, -1);
  private long clock;
  private int numNodes;

  public RadixPrefixCache(PageAllocator allocator) {
    this.allocator = allocator;
  }

  /**
   * The pages of the longest cached prefix of {@code tokens[0, limit)}, in position order; each
   * returned page is retained once for the caller, who must release it.
   */
  public int[] match(int[] tokens, int limit) {
    List<Integer> pages = new ArrayList<>();
    Node node = root;
    long now = ++clock;
    for (int start = 0; start + KvStore.PAGE_SIZE <= limit; start += KvStore.PAGE_SIZE) {
      Node child = node.children.get(new ChunkKey(tokens, start));
      if (child == null) {
        break;
      }
      child.lastUse = now;
      allocator.retain(child.page);
      pages.add(child.page);
      node = child;
    }
    return pages.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Caches the full pages of a sequence: {@code pages[i]} holds the KV of
   * {@code tokens[16 i, 16 i + 16)} for every {@code i < numTokens / 16}. Chunks already cached keep
   * their page (the caller's duplicate stays the caller's to release); new ones are retained.
   */
  public void insert(int[] tokens, int numTokens, int[] pages) {
    Node node = root;
    long now = ++clock;
    int full = Math.min(numTokens / KvStore.PAGE_SIZE, pages.length);
    for (int i = 0; i < full; i++) {
      ChunkKey key = new ChunkKey(tokens, i * KvStore.PAGE_SIZE);
      Node child = node.children.get(key);
      if (child == null) {
        allocator.retain(pages[i]);
        child = new Node(node, key, pages[i]);
        node.children.put(key, child);
        numNodes++;
      }
      child.lastUse = now;
      node = child;
    }
  }

  /**
   * Frees up to {@code wanted} pages by dropping least recently used leaves that nobody but the
   * cache holds. Returns the number of pages that became free.
   */
  public int evict(int wanted) {
    if (wanted <= 0 || numNodes == 0) {
      return 0;
    }
    PriorityQueue<Node> leaves = new PriorityQueue<>((a, b) -> Long.compare(a.lastUse, b.lastUse));
    collectEvictableLeaves(root, leaves);
    int freed = 0;
    while (freed < wanted && !leaves.isEmpty()) {
      Node leaf = leaves.poll();
      leaf.parent.children.remove(leaf.key);
      numNodes--;
      if (allocator.release(leaf.page)) {
        freed++;
      }
      Node parent = leaf.parent;
      if (parent != root && parent.children.isEmpty() && allocator.refCount(parent.page) == 1) {
        leaves.add(parent);
      }
    }
    return freed;
  }

  /** Pages the cache could free right now (held by nobody else, reachable by leaf eviction). */
  public int evictablePages() {
    return countEvictable(root);
  }

  public int cachedPages() {
    return numNodes;
  }

  /** Drops every cache entry (pages still held by sequences stay theirs). */
  public void clear() {
    evict(Integer.MAX_VALUE);
  }

  private void collectEvictableLeaves(Node node, PriorityQueue<Node> out) {
    for (Node child : node.children.values()) {
      if (child.children.isEmpty()) {
        if (allocator.refCount(child.page) == 1) {
          out.add(child);
        }
      } else {
        collectEvictableLeaves(child, out);
      }
    }
  }

  private int countEvictable(Node node) {
    return countBelow(node, new boolean[1]);
  }

  /** Evictable pages strictly below {@code node}; {@code allFree[0]} = every one of them is. */
  private int countBelow(Node node, boolean[] allFree) {
    int total = 0;
    boolean all = true;
    boolean[] childAll = new boolean[1];
    for (Node child : node.children.values()) {
      total += countBelow(child, childAll);
      if (childAll[0] && allocator.refCount(child.page) == 1) {
        total++;
      } else {
        all = false;
      }
    }
    allFree[0] = all;
    return total;
  }

  private static final class Node {
    final Node parent;
    final ChunkKey key;
    final int page;
    final Map<ChunkKey, Node> children = new HashMap<>();
    long lastUse;

    Node(Node parent, ChunkKey key, int page) {
      this.parent = parent;
      this.key = key;
      this.page = page;
    }
  }

  /** One page's worth of tokens as a map key. */
  private static final class ChunkKey {
    private final int[] tokens;
    private final int hash;

    ChunkKey(int[] source, int start) {
      this.tokens = Arrays.copyOfRange(source, start, start + KvStore.PAGE_SIZE);
      this.hash = Arrays.hashCode(tokens);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof ChunkKey k && hash == k.hash && Arrays.equals(tokens, k.tokens);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
