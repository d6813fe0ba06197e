package dev.tandem.engine.model;

import dev.tandem.engine.kv.KvStore;

/** A plain in-memory {@link KvStore} for model tests. */
final class ArrayKvStore implements KvStore {
  private final int kvDim;
  private final int numSlots;
  private final float[][] keys;
  private final float[][] values;

  ArrayKvStore(LlamaConfig c, int numSlots) {
    this.kvDim = c.kvDim();
    this.numSlots = numSlots;
    keys = new float[c.numLayers()][numSlots * kvDim];
    values = new float[c.numLayers()][numSlots * kvDim];
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
