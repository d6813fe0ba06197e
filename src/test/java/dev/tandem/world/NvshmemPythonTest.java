package dev.tandem.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The NVSHMEM lookup searches the site-packages of the Python the fleet runs (--python). */
class NvshmemPythonTest {

  @Test
  void theFleetsPythonIsAskedForItsSitePackages(@TempDir Path tmp) throws Exception {
    Path site = tmp.resolve("venv/lib/python3.11/site-packages");
    Path library = site.resolve("nvidia/nvshmem/lib/libnvshmem_host.so.3");
    Files.createDirectories(library.getParent());
    Files.writeString(library, "not really a library");
    Path python = tmp.resolve("venv/bin/python");
    Files.createDirectories(python.getParent());
    Files.writeString(python, "#!/bin/sh\necho " + site + "\n");
    Files.setPosixFilePermissions(python, PosixFilePermissions.fromString("rwxr-xr-x"));

    NvshmemLibraryLocator locator = NvshmemLibraryLocator.fromEnvironment(python.toString());
    var dirs = locator.searchDirs();
    assertTrue(NvshmemLibraryLocator.describe(dirs).contains(python + " site-packages"),
        NvshmemLibraryLocator.describe(dirs));
    assertEquals(library.toAbsolutePath(), locator.find(dirs).orElseThrow());
  }
}
