package dev.tandem.world.transport;

import dev.tandem.kv.KvReceiveTarget;
import dev.tandem.kv.KvRows;
import dev.tandem.kv.KvTransferException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test double of the engine's receiving side: a slot-reservation map and flat float arrays, with
 * the checks the real engine makes (request parked, every slot reserved for it, shape). Counts the
 * transfers it stored so that tests can see that refused ones wrote nothing.
 */
public final class ReservingKvTargetDouble implements KvReceiveTarget {
  private final int numLayers;
  private final int kvDim;
  private final int numSlots;
  private final float[][] keys;
  private final float[][] values;
  private final Map<String, Set<Integer>> reservations = new ConcurrentHashMap<>();
  private final AtomicInteger stored = new AtomicInteger();
  private final AtomicInteger refusedByTransport = new AtomicInteger();

  public ReservingKvTargetDouble(int numLayers, int kvDim, int numSlots) {
    this.numLayers = numLayers;
    this.kvDim = kvDim;
    this.numSlots = numSlots;
    this.keys = new float[numLayers][numSlots * kvDim];
    this.values = new float[numLayers][numSlots * kvDim];
  }

  public void reserve(String requestId, int... slots) {
    Set<Integer> set = reservations.computeIfAbsent(requestId, r -> ConcurrentHashMap.newKeySet());
    for (int s : slots) {
      set.add(s);
    }
  }

  @Override
  public synchronized void accept(String requestId, int[] slots, KvRows rows) throws KvTransferException {
    Set<Integer> reserved = reservations.get(requestId);
    if (reserved == null) {
      throw new KvTransferException("request " + requestId + " is not waiting for KV (no prep_recv)");
    }
    if (rows.keys().length != numLayers || rows.kvDim() != kvDim) {
      throw new KvTransferException("shape " + rows.keys().length + "x" + rows.kvDim() + " != " + numLayers + "x" + kvDim);
    }
    for (int slot : slots) {
      if (slot != -1 && (slot < 0 || slot >= numSlots || !reserved.contains(slot))) {
        throw new KvTransferException("slot " + slot + " is not reserved for request " + requestId);
      }
    }
    for (int l = 0; l < numLayers; l++) {
      for (int i = 0; i < slots.length; i++) {
        if (slots[i] >= 0) {
          System.arraycopy(rows.keys()[l], i * kvDim, keys[l], slots[i] * kvDim, kvDim);
          System.arraycopy(rows.values()[l], i * kvDim, values[l], slots[i] * kvDim, kvDim);
        }
      }
    }
    stored.incrementAndGet();
  }

  @Override
  public void refused(String requestId, String reason) {
    refusedByTransport.incrementAndGet();
  }

  /** Transfers the transport refused before they reached {@link #accept}. */
  public int refusedByTransport() {
    return refusedByTransport.get();
  }

  public int storedTransfers() {
    return stored.get();
  }

  public synchronized float[] keyRow(int layer, int slot) {
    return java.util.Arrays.copyOfRange(keys[layer], slot * kvDim, (slot + 1) * kvDim);
  }

  public synchronized float[] valueRow(int layer, int slot) {
    return java.util.Arrays.copyOfRange(values[layer], slot * kvDim, (slot + 1) * kvDim);
  }

  /** True while no transfer has written anything. */
  public synchronized boolean untouched() {
    for (int l = 0; l < numLayers; l++) {
      for (int i = 0; i < keys[l].length; i++) {
        if (keys[l][i] != 0f || values[l][i] != 0f) {
          return false;
        }
      }
    }
    return stored.get() == 0;
  }

  /** Rows whose every value says where it came from, so misplaced rows show. */
  public static KvRows rows(int numLayers, int kvDim, int numTokens, int seed) {
    float[][] k = new float[numLayers][numTokens * kvDim];
    float[][] v = new float[numLayers][numTokens * kvDim];
    java.util.Random random = new java.util.Random(seed);
    for (int l = 0; l < numLayers; l++) {
      for (int i = 0; i < numTokens * kvDim; i++) {
        k[l][i] = (float) random.nextGaussian();
        v[l][i] = (float) random.nextGaussian();
      }
    }
    return new KvRows(numTokens, kvDim, k, v);
  }
}
