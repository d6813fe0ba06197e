package dev.tandem.engine.model;

/**
 * Flat K/V arrays for a fixed number of slots, with no page allocation: for driving the model
 * directly (model tests, the throughput benchmark). The engine uses its paged cache ({@code engine.kv.PagedKvCache}).
 */
public final class ArrayKvStore implements KvStore {
  private final int kvDim;
  private final int numSlots;
  private final float[][] keys;
  private final float[][] values;

  public ArrayKvStore(LlamaConfig c, int numSlots) {
    this.kvDim = c.kvDim();
    this.numSlots = numSlots;
    keys = new float[c.numLayers()][Math.multiplyExact(numSlots, kvDim)];
    values = new float[c.numLayers()][Math.multiplyExact(numSlots, kvDim)];
  }

  @Override
  public int numLayers() {
    return keys.length;
  }

  @Override
  public int kvDim() {
    return kvDim;
  }

  @Override
  public int numSlots() {
    return numSlots;
  }

  @Override
  public float[] keys(int layer) {
    return keys[layer];
  }

  @Override
  public float[] values(int layer) {
    return values[layer];
  }
}
