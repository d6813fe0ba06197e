package dev.tandem.world;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvshmemUidTest {

  /** A 128-byte nvshmemx_uniqueid_t as x86-64 lays it out: little-endian int, then 124 chars. */
  private static byte[] sampleId() {
    byte[] id = new byte[128];
    int version = (1 << 16) + 128;
    id[0] = (byte) version;
    id[1] = (byte) (version >>> 8);
    id[2] = (byte) (version >>> 16);
    id[3] = (byte) (version >>> 24);
    for (int i = 0; i < 124; i++) {
      id[4 + i] = (byte) (i * 53 + 7); // covers 0x00..0xFF
    }
    return id;
  }

  @Test
  void encodesLikeTvmOnX86() {
    byte[] id = sampleId();
    int[] uid = NvshmemUid.encode(id, ByteOrder.LITTLE_ENDIAN, true);
    assertEquals(125, uid.length);
    assertEquals(65664, uid[0]);
    for (int i = 0; i < 124; i++) {
      // static_cast<int64_t>(char c) with signed char: the two's complement value of the byte.
      int c = (i * 53 + 7) & 0xFF;
      int expected = c >= 128 ? c - 256 : c;
      assertEquals(expected, uid[i + 1], "internal[" + i + "]");
    }
    assertTrue(java.util.stream.IntStream.of(uid).skip(1).anyMatch(v -> v < 0), "sample has bytes >= 0x80");
  }

  @Test
  void encodesLikeTvmWhereCharIsUnsigned() {
    int[] uid = NvshmemUid.encode(sampleId(), ByteOrder.LITTLE_ENDIAN, false);
    for (int i = 0; i < 124; i++) {
      assertEquals((i * 53 + 7) & 0xFF, uid[i + 1]);
    }
    assertTrue(NvshmemUid.charIsSigned("amd64"));
    assertFalse(NvshmemUid.charIsSigned("aarch64"));
  }

  @Test
  void nvshmemUidTravelsInTheConfigAndIsRefusedByTheBuiltinWorld() throws Exception {
    int[] uid = NvshmemUid.encode(sampleId(), ByteOrder.LITTLE_ENDIAN, true);
    WorldInitConfig config = WorldInitConfig.parse(new WorldInitConfig(uid, 2, 1).toJson());
    assertArrayEquals(uid, config.uid());
    WorldException e = assertThrows(WorldException.class, () -> WorldUid.decode(config.uid()));
    assertTrue(e.getMessage().startsWith("this uid is an NVSHMEM uid"), e.getMessage());
  }

  @Test
  void missingLibraryNamesEveryPlaceSearched(@TempDir Path tmp) throws Exception {
    Path home = tmp.resolve("nvshmem-home");
    Path a = tmp.resolve("ld-a");
    Path b = tmp.resolve("ld-b");
    Files.createDirectories(a);
    NvshmemLibraryLocator locator = new NvshmemLibraryLocator(
        Map.of("NVSHMEM_HOME", home.toString(), "LD_LIBRARY_PATH", a + ":" + b, "PATH", "/nonexistent"),
        "python3");
    WorldException e = assertThrows(WorldException.class, () -> NvshmemUid.get(locator));
    String m = e.getMessage();
    assertTrue(m.contains("was not found"), m);
    assertTrue(m.contains("Disaggregation with MLC engines (--engine mlc) needs NVSHMEM"), m);
    assertTrue(m.contains(home.resolve("lib") + " (NVSHMEM_HOME)"), m);
    assertTrue(m.contains(a + " (LD_LIBRARY_PATH)"), m);
    assertTrue(m.contains(b + " (LD_LIBRARY_PATH)"), m);
    assertTrue(m.contains("/usr/local/nvshmem/lib (typical install folder)"), m);
    assertTrue(m.contains("the system library path (ldconfig)"), m);
  }

  @Test
  void searchesPythonSitePackages(@TempDir Path tmp) {
    // Uses the machine's python3 when there is one: its site-packages must be in the list.
    NvshmemLibraryLocator locator = new NvshmemLibraryLocator(System.getenv(), "python3");
    boolean hasPython = System.getenv().getOrDefault("PATH", "").contains("/")
        && java.util.Arrays.stream(System.getenv("PATH").split(":"))
            .anyMatch(d -> Files.isExecutable(Path.of(d, "python3")));
    String described = NvshmemLibraryLocator.describe(locator.searchDirs());
    assertEquals(hasPython, described.contains("nvidia/nvshmem/lib (python3 site-packages)"), described);
  }

  @Test
  void unloadableLibraryIsNamed(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("lib");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("libnvshmem_host.so.3"), "not an ELF file");
    NvshmemLibraryLocator locator = new NvshmemLibraryLocator(Map.of("NVSHMEM_HOME", tmp.toString()), "python3");
    String m = assertThrows(WorldException.class, () -> NvshmemUid.get(locator)).getMessage();
    assertTrue(m.contains(dir.resolve("libnvshmem_host.so.3") + " was found but could not be loaded"), m);
  }
}
