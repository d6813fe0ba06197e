package dev.tandem.world;

/**
 * Prints the uid that {@link NvshmemUid#get()} obtains from the real libnvshmem_host, as a Python
 * {@code json.dumps} line {@code {"uid": [...], "npes": 1, "pe_start": 0}} on stdout. For checking
 * the binding on a GPU machine:
 * {@code java -cp tandem.jar dev.tandem.world.NvshmemUidProbe}. Exit 0 on success, 1 with the
 * reason on stderr otherwise.
 */
public final class NvshmemUidProbe {
  public static void main(String[] args) {
    try {
      int[] uid = NvshmemUid.get();
      System.out.println(new WorldInitConfig(uid, 1, 0).toJson());
      System.out.flush();
      System.exit(0);
    } catch (WorldException e) {
      System.err.println("NvshmemUidProbe: " + e.getMessage());
      System.exit(1);
    }
  }

  private NvshmemUidProbe() {}
}
