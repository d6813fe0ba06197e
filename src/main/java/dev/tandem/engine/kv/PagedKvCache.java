package dev.tandem.engine.kv;

import dev.tandem.engine.model.KvStore;
import dev.tandem.kv.KvRows;

/**
 * The engine's KV storage: per layer one flat float array of keys and one of values, row
 * {@code slot} at {@code [slot * kvDim, (slot + 1) * kvDim)}, with {@code slot = page * 16 + offset}.
 * Pages are handed out by {@link #pages()}.
 */
public final class PagedKvCache implements KvStore {
  private final int numLayers;
  private final int kvDim;
  private final int numPages;
  private final float[][] keys;
  private final float[][] values;
  private final PageAllocator allocator;

  public PagedKvCache(int numLayers, int kvDim, int numPages) {
    if ((long) numPages * PAGE_SIZE * kvDim > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("KV cache of " + numPages + " pages x " + PAGE_SIZE
          + " tokens x " + kvDim + " floats does not fit in one Java array per layer; lower max_total_seq_length");
    }
    this.numLayers = numLayers;
    this.kvDim = kvDim;
    this.numPages = numPages;
    int floats = numPages * PAGE_SIZE * kvDim;
    keys = new float[numLayers][];
    values = new float[numLayers][];
    for (int l = 0; l < numLayers; l++) {
      keys[l] = new float[floats];
      values[l] = new float[floats];
    }
    allocator = new PageAllocator(numPages);
  }

  /** Bytes of K and V storage one token takes. */
  public static long bytesPerToken(int numLayers, int kvDim) {
    return 2L * numLayers * kvDim * Float.BYTES;
  }

  @Override
  public int numLayers() {
    return numLayers;
  }

  @Override
  public int kvDim() {
    return kvDim;
  }

  @Override
  public int numSlots() {
    return numPages * PAGE_SIZE;
  }

  public int numPages() {
    return numPages;
  }

  @Override
  public float[] keys(int layer) {
    return keys[layer];
  }

  @Override
  public float[] values(int layer) {
    return values[layer];
  }

  public PageAllocator pages() {
    return allocator;
  }

  /** Copies {@code count} consecutive rows from {@code srcSlot} to {@code dstSlot} in every layer. */
  public void copyRows(int srcSlot, int dstSlot, int count) {
    for (int l = 0; l < numLayers; l++) {
      System.arraycopy(keys[l], srcSlot * kvDim, keys[l], dstSlot * kvDim, count * kvDim);
      System.arraycopy(values[l], srcSlot * kvDim, values[l], dstSlot * kvDim, count * kvDim);
    }
  }

  /** A copy of the rows of {@code slots}, position-major. */
  public KvRows readRows(int[] slots) {
    float[][] k = new float[numLayers][];
    float[][] v = new float[numLayers][];
    for (int l = 0; l < numLayers; l++) {
      k[l] = new float[slots.length * kvDim];
      v[l] = new float[slots.length * kvDim];
      for (int i = 0; i < slots.length; i++) {
        System.arraycopy(keys[l], slots[i] * kvDim, k[l], i * kvDim, kvDim);
        System.arraycopy(values[l], slots[i] * kvDim, v[l], i * kvDim, kvDim);
      }
    }
    return new KvRows(slots.length, kvDim, k, v);
  }

  /** Writes rows into {@code slots}; the caller has checked shapes and ownership. */
  public void writeRows(int[] slots, KvRows rows) {
    for (int l = 0; l < numLayers; l++) {
      float[] srcK = rows.keys()[l];
      float[] srcV = rows.values()[l];
      for (int i = 0; i < slots.length; i++) {
        System.arraycopy(srcK, i * kvDim, keys[l], slots[i] * kvDim, kvDim);
        System.arraycopy(srcV, i * kvDim, values[l], slots[i] * kvDim, kvDim);
      }
    }
  }

  /** Describes why {@code rows} cannot go into {@code slots} here, or null when they fit. */
  public String shapeMismatch(int[] slots, KvRows rows) {
    if (rows.numTokens() != slots.length) {
      return "rows carry " + rows.numTokens() + " tokens for " + slots.length + " slots";
    }
    if (rows.kvDim() != kvDim) {
      return "rows have kvDim " + rows.kvDim() + ", this engine's cache has " + kvDim;
    }
    if (rows.keys().length != numLayers || rows.values().length != numLayers) {
      return "rows have " + rows.keys().length + " layers, this engine's model has " + numLayers;
    }
    long need = (long) slots.length * kvDim;
    for (int l = 0; l < numLayers; l++) {
      if (rows.keys()[l].length < need || rows.values()[l].length < need) {
        return "layer " + l + " rows are truncated";
      }
    }
    for (int s : slots) {
      if (s < 0 || s >= numSlots()) {
        return "slot " + s + " is outside this engine's cache (0.." + (numSlots() - 1) + ")";
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return "PagedKvCache[layers=" + numLayers + ", kvDim=" + kvDim + ", pages=" + numPages
        + ", free=" + allocator.numFree() + "]";
  }
}
