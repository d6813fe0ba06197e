package dev.tandem.world;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** NVSHMEM unique ids for MLC engines, from libnvshmem_host through JNA. */
public final class NvshmemUid {
  private static final Logger LOG = LoggerFactory.getLogger(NvshmemUid.class);

  /** {@code sizeof(nvshmemx_uniqueid_t)}: {@code int version; char internal[124]}. */
  public static final int STRUCT_BYTES = 128;
  static final String SYMBOL = "nvshmemx_get_uniqueid";
  static final String UID_PLUGIN_ENV = "NVSHMEM_BOOTSTRAP_UID_PLUGIN";

  /**
   * Libraries loaded here stay loaded: NVSHMEM's bootstrap root thread lives in them and must
   * outlive every engine's init.
   */
  private static final List<NativeLibrary> KEEP_LOADED = new ArrayList<>();

  /**
   * Calls {@code nvshmemx_get_uniqueid} (which also starts NVSHMEM's bootstrap root thread in this
   * process) and encodes the 128-byte id as TVM does: 125 ints, version then 124 signed bytes.
   * Throws, naming every place searched, when the library is absent.
   */
  public static int[] get() throws WorldException {
    return get("python3");
  }

  /**
   * The same, searching also the site-packages of {@code python}: the Python the fleet runs MLC
   * engines with ({@code --python}), whose {@code nvidia-nvshmem-cu12} wheel holds the library.
   */
  public static int[] get(String python) throws WorldException {
    return get(NvshmemLibraryLocator.fromEnvironment(python));
  }

  static int[] get(NvshmemLibraryLocator locator) throws WorldException {
    LinkedHashMap<Path, String> dirs = locator.searchDirs();
    Optional<Path> file = locator.find(dirs);
    NativeLibrary library;
    String origin;
    try {
      if (file.isPresent()) {
        origin = file.get().toString();
        library = NativeLibrary.getInstance(origin);
      } else {
        origin = "nvshmem_host (system library path)";
        library = NativeLibrary.getInstance("nvshmem_host");
      }
    } catch (UnsatisfiedLinkError e) {
      String why = file.isPresent()
          ? "NVSHMEM's host library " + file.get() + " was found but could not be loaded (" + e.getMessage()
              + "); check that the CUDA driver libraries it needs are installed"
          : "NVSHMEM's host library (libnvshmem_host.so) was not found";
      throw new WorldException(why + ". Disaggregation with MLC engines (--engine mlc) needs NVSHMEM: install it"
          + " (e.g. pip install nvidia-nvshmem-cu12) or point NVSHMEM_HOME or LD_LIBRARY_PATH at it. Searched:"
          + NvshmemLibraryLocator.describe(dirs));
    }
    file.flatMap(NvshmemLibraryLocator::uidPluginBeside).ifPresent(NvshmemUid::pointAtUidPlugin);
    Function getUniqueId;
    try {
      getUniqueId = library.getFunction(SYMBOL);
    } catch (UnsatisfiedLinkError e) {
      throw new WorldException(origin + " has no " + SYMBOL + " (NVSHMEM 2.x or later is needed)", e);
    }
    synchronized (KEEP_LOADED) {
      KEEP_LOADED.add(library);
    }
    try (Memory id = new Memory(STRUCT_BYTES)) {
      id.clear();
      id.setInt(0, WorldUid.NVSHMEM_VERSION); // NVSHMEMX_UNIQUEID_INITIALIZER
      int status = getUniqueId.invokeInt(new Object[] {id});
      if (status != 0) {
        throw new WorldException(SYMBOL + " in " + origin + " failed with status " + status
            + " (NVSHMEM printed why above; NVSHMEM_DEBUG=INFO says more)");
      }
      int[] uid = encode(id.getByteArray(0, STRUCT_BYTES));
      LOG.info("NVSHMEM uid from {} (version {}); its bootstrap root runs in this process", origin, uid[0]);
      return uid;
    }
  }

  /** TVM's {@code init_nvshmem_uid} on this machine: native byte order, C {@code char} signedness. */
  public static int[] encode(byte[] uniqueId) {
    return encode(uniqueId, ByteOrder.nativeOrder(), charIsSigned(System.getProperty("os.arch")));
  }

  /**
   * Element 0: the struct's {@code int version}; elements 1..124: {@code internal[i]} widened from
   * C {@code char}, i.e. -128..127 where {@code char} is signed (x86-64), 0..255 where it is not
   * (aarch64, ppc64le, s390x). TVM's decoder casts each back to {@code char}, so both read back to
   * the same bytes.
   */
  public static int[] encode(byte[] uniqueId, ByteOrder order, boolean charIsSigned) {
    if (uniqueId.length != STRUCT_BYTES) {
      throw new IllegalArgumentException("nvshmemx_uniqueid_t is " + STRUCT_BYTES + " bytes, got " + uniqueId.length);
    }
    int[] uid = new int[WorldUid.LENGTH];
    uid[0] = ByteBuffer.wrap(uniqueId, 0, 4).order(order).getInt();
    for (int i = 0; i < WorldUid.BYTES; i++) {
      byte b = uniqueId[4 + i];
      uid[i + 1] = charIsSigned ? b : b & 0xFF;
    }
    return uid;
  }

  static boolean charIsSigned(String osArch) {
    String arch = osArch == null ? "" : osArch.toLowerCase();
    return !(arch.startsWith("aarch64") || arch.startsWith("arm") || arch.startsWith("ppc")
        || arch.startsWith("s390") || arch.startsWith("riscv"));
  }

  /** Sets NVSHMEM_BOOTSTRAP_UID_PLUGIN in the C environment unless the user set it. */
  private static void pointAtUidPlugin(Path plugin) {
    if (System.getenv(UID_PLUGIN_ENV) != null) {
      return;
    }
    try {
      NativeLibrary libc = NativeLibrary.getInstance("c");
      libc.getFunction("setenv").invokeInt(new Object[] {UID_PLUGIN_ENV, plugin.toString(), 0});
      LOG.debug("{}={}", UID_PLUGIN_ENV, plugin);
    } catch (UnsatisfiedLinkError e) {
      LOG.warn("could not set {} ({}); NVSHMEM will look for its UID plugin by name", UID_PLUGIN_ENV, e.getMessage());
    }
  }

  private NvshmemUid() {}
}
