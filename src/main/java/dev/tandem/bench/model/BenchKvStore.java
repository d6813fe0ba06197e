package dev.tandem.bench.model;

import dev.tandem.engine.kv.KvStore;
import dev.tandem.engine.model.LlamaConfig;

/** Flat K/V arrays sized for one benchmark run (the engine has its own paged store). */
final class BenchKvStore implements KvStore {
  private final int kvDim;
  private final int numSlots;
  private final float[][] keys;
  private final float[][] values;

  BenchKvStore(LlamaConfig c, int numSlots) {
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
