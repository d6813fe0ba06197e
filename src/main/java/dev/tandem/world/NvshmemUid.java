package dev.tandem.world;

/** NVSHMEM unique ids for MLC engines, from libnvshmem_host through JNA. */
public final class NvshmemUid {

  /**
   * Calls {@code nvshmemx_get_uniqueid} (which also starts NVSHMEM's bootstrap root thread in this
   * process) and encodes the 128-byte id as TVM does: 125 ints, version then 124 signed bytes.
   * Throws, naming every place searched, when the library is absent.
   */
  public static int[] get() throws WorldException {
    throw new WorldException("NVSHMEM binding is not implemented yet");
  }

  private NvshmemUid() {}
}
