package dev.tandem.tokenizer;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The ids of texts' beginnings, so that a conversation's history is tokenized once, not once per
 * turn. A chat prompt renders the whole conversation, and each turn's prompt begins with the
 * last one's; at 0.5-0.8 us per token, re-tokenizing a history of 4,000 tokens costs 2-3 ms of
 * CPU per turn (BENCHMARKS.md, bench/tokenizer-micro.sh).
 *
 * <p>A text is cut only where its {@link TokenizerSegments} allow (right after an added token the
 * tokenizer always splits on), so the ids of a cached beginning followed by the ids of the rest
 * are the ids of the whole. Each encode looks for the longest cached beginning that ends at one of
 * the text's cut points (compared char for char, not trusted to a hash), tokenizes what follows
 * it up to the text's last cut point and what follows that separately, and keeps the beginning up
 * to the last cut point in place of the one it extended. Texts shorter than {@link #MIN_CHARS}
 * are tokenized whole, as are texts without cut points. The entries are bounded by their chars
 * ({@code maxChars}), least recently used first out. Thread-safe.
 */
final class PrefixIds {
  /** Below this, a text is tokenized in one call: a second call would cost more than it saves. */
  static final int MIN_CHARS = 1024;
  /**
   * How many of a text's last cut points are looked up. A turn adds a few (each message opens and
   * closes); a text made of markers must not make an encode look up, and lock, once per marker.
   */
  static final int MAX_LOOKUPS = 256;

  private final TokenizerSegments segments;
  private final Function<String, int[]> encoder;
  private final long maxChars;
  /** In access order (least recently used first); guarded by this, as {@link #chars} is. */
  private final Map<Key, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private long chars;

  /**
   * @param encoder the tokenizer's own encoding of a whole text
   * @param maxChars the chars of cached beginnings kept at most (their ids besides)
   */
  PrefixIds(TokenizerSegments segments, Function<String, int[]> encoder, long maxChars) {
    this.segments = segments;
    this.encoder = encoder;
    this.maxChars = maxChars;
  }

  int[] encode(String text) {
    if (text == null || text.length() < MIN_CHARS) {
      return encoder.apply(text);
    }
    int[] cuts = segments.cuts(text);
    if (cuts.length == 0) {
      return encoder.apply(text);
    }
    long[] hashes = hashesAt(text, cuts);
    Entry from = longestCached(text, cuts, hashes);
    int lastCut = cuts.length - 1;
    int last = cuts[lastCut];
    int start = from == null ? 0 : from.text.length();
    int[] head = from == null ? new int[0] : from.ids;
    if (start < last) {
      head = concat(head, encoder.apply(text.substring(start, last)));
      put(from, new Entry(new Key(last, hashes[lastCut]), text.substring(0, last), head));
    }
    return last == text.length() ? head.clone() : concat(head, encoder.apply(text.substring(last)));
  }

  /**
   * The longest cached beginning of {@code text} that ends at one of its last
   * {@link #MAX_LOOKUPS} cuts; null if none.
   */
  private Entry longestCached(String text, int[] cuts, long[] hashes) {
    Entry found = null;
    for (int i = cuts.length - 1; i >= Math.max(0, cuts.length - MAX_LOOKUPS) && found == null;
        i--) {
      Key key = new Key(cuts[i], hashes[i]);
      synchronized (this) {
        found = entries.get(key);
      }
    }
    // the hash chose it; the chars decide (an entry is immutable, so outside the lock)
    if (found != null && !text.startsWith(found.text)) {
      found = null;
    }
    (found == null ? misses : hits).increment();
    return found;
  }

  /** The hash of {@code text}'s first {@code cut} chars, for each cut. */
  private static long[] hashesAt(String text, int[] cuts) {
    long[] hashes = new long[cuts.length];
    long h = 0;
    int i = 0;
    for (int c = 0; c < cuts.length; c++) {
      for (; i < cuts[c]; i++) {
        h = h * 0x100000001b3L + text.charAt(i);
      }
      hashes[c] = h;
    }
    return hashes;
  }

  private static int[] concat(int[] a, int[] b) {
    int[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** Keeps {@code entry} in place of {@code replaced} (the beginning it extends; may be null). */
  private synchronized void put(Entry replaced, Entry entry) {
    if (entry.text.length() > maxChars) {
      return;
    }
    if (replaced != null && entries.get(replaced.key) == replaced) {
      entries.remove(replaced.key);
      chars -= replaced.text.length();
    }
    Entry old = entries.put(entry.key, entry);
    chars += entry.text.length() - (old == null ? 0 : old.text.length());
    Iterator<Entry> eldest = entries.values().iterator();
    while (chars > maxChars && eldest.hasNext()) {
      chars -= eldest.next().text.length();
      eldest.remove();
    }
  }

  synchronized KeptBeginnings stats() {
    return new KeptBeginnings(entries.size(), chars, hits.sum(), misses.sum());
  }

  private record Key(int length, long hash) {}

  private record Entry(Key key, String text, int[] ids) {}
}
