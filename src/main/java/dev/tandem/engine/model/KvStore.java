package dev.tandem.engine.model;

/**
 * The flat K/V storage of one engine, addressed by slot ({@code slot = page * 16 + offset}).
 * Row of slot {@code s} in layer {@code l}: {@code keys(l)[s * kvDim() .. (s + 1) * kvDim())}, the
 * same for values; {@code kvDim = numKvHeads * headDim}, heads contiguous.
 */
public interface KvStore {
  int PAGE_SIZE = 16;

  int numLayers();

  int kvDim();

  /** Total slots (= pages * PAGE_SIZE). */
  int numSlots();

  float[] keys(int layer);

  float[] values(int layer);
}
