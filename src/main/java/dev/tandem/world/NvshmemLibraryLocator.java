package dev.tandem.world;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds NVSHMEM's host library on disk: {@code $NVSHMEM_HOME/lib}, every {@code LD_LIBRARY_PATH}
 * entry, Python's {@code site-packages/nvidia/nvshmem/lib} (the {@code nvidia-nvshmem-cu12} wheel,
 * which MLC installs) and the usual install folders. Remembers every place it looked, so that the
 * error can name them.
 */
final class NvshmemLibraryLocator {
  private static final Logger LOG = LoggerFactory.getLogger(NvshmemLibraryLocator.class);

  /** Unversioned first (a developer's link), then the sonames of NVSHMEM 3 and 2. */
  static final List<String> FILE_NAMES = List.of("libnvshmem_host.so", "libnvshmem_host.so.3", "libnvshmem_host.so.2");
  static final List<String> TYPICAL_DIRS = List.of(
      "/usr/local/nvshmem/lib", "/opt/nvidia/nvshmem/lib", "/usr/lib/x86_64-linux-gnu/nvshmem/12",
      "/usr/lib/x86_64-linux-gnu/nvshmem/13", "/usr/lib/aarch64-linux-gnu/nvshmem/12",
      "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/lib");
  private static final long PYTHON_TIMEOUT_MS = 5_000;

  private final Map<String, String> env;
  private final String python;

  NvshmemLibraryLocator(Map<String, String> env, String python) {
    this.env = env;
    this.python = python;
  }

  /** Searches this process's environment and the site-packages of {@code python}. */
  static NvshmemLibraryLocator fromEnvironment(String python) {
    return new NvshmemLibraryLocator(System.getenv(), python);
  }

  /** Every folder to search, in order, each with where it came from (for the error message). */
  LinkedHashMap<Path, String> searchDirs() {
    LinkedHashMap<Path, String> dirs = new LinkedHashMap<>();
    String home = env.get("NVSHMEM_HOME");
    if (home != null && !home.isBlank()) {
      dirs.putIfAbsent(Path.of(home, "lib"), "NVSHMEM_HOME");
    }
    String ldPath = env.get("LD_LIBRARY_PATH");
    if (ldPath != null) {
      for (String entry : ldPath.split(File.pathSeparator)) {
        if (!entry.isBlank()) {
          dirs.putIfAbsent(Path.of(entry), "LD_LIBRARY_PATH");
        }
      }
    }
    for (Path sitePackages : pythonSitePackages()) {
      dirs.putIfAbsent(sitePackages.resolve("nvidia/nvshmem/lib"), python + " site-packages");
    }
    for (String typical : TYPICAL_DIRS) {
      dirs.putIfAbsent(Path.of(typical), "typical install folder");
    }
    return dirs;
  }

  /** The first library file found, or empty. */
  Optional<Path> find(LinkedHashMap<Path, String> dirs) {
    for (Path dir : dirs.keySet()) {
      for (String name : FILE_NAMES) {
        Path candidate = dir.resolve(name);
        if (Files.isRegularFile(candidate)) {
          return Optional.of(candidate.toAbsolutePath());
        }
      }
    }
    return Optional.empty();
  }

  /** NVSHMEM dlopen()s its UID bootstrap plugin by bare name; this is the one beside the host library. */
  static Optional<Path> uidPluginBeside(Path hostLibrary) {
    Path dir = hostLibrary.getParent();
    for (String name : List.of("nvshmem_bootstrap_uid.so", "nvshmem_bootstrap_uid.so.3", "nvshmem_bootstrap_uid.so.2")) {
      Path plugin = dir.resolve(name);
      if (Files.isRegularFile(plugin)) {
        return Optional.of(plugin);
      }
    }
    return Optional.empty();
  }

  static String describe(LinkedHashMap<Path, String> dirs) {
    StringBuilder s = new StringBuilder();
    dirs.forEach((dir, why) -> s.append("\n  ").append(dir).append(" (").append(why).append(')'));
    s.append("\n  the system library path (ldconfig)");
    return s.toString();
  }

  /** Asks Python for its site-packages folders; skipped quietly when Python is absent or slow. */
  private List<Path> pythonSitePackages() {
    List<Path> result = new ArrayList<>();
    if (!onPath(python)) {
      return result;
    }
    Process process = null;
    try {
      process = new ProcessBuilder(python, "-c",
          "import site, sys\n"
              + "p = list(getattr(site, 'getsitepackages', lambda: [])())\n"
              + "u = getattr(site, 'getusersitepackages', lambda: '')()\n"
              + "print('\\n'.join(p + ([u] if u else []) + [x for x in sys.path if x.endswith('-packages')]))")
          .redirectErrorStream(false)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
      process.getOutputStream().close();
      if (!process.waitFor(PYTHON_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
        LOG.warn("{} did not list its site-packages within {} ms; not searching them for NVSHMEM", python,
            PYTHON_TIMEOUT_MS);
        return result;
      }
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      for (String line : out.split("\n")) {
        if (!line.isBlank()) {
          result.add(Path.of(line.strip()));
        }
      }
    } catch (IOException e) {
      LOG.debug("could not ask {} for its site-packages: {}", python, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (process != null) {
        process.destroyForcibly();
      }
    }
    return result;
  }

  private boolean onPath(String program) {
    if (program.contains(File.separator)) {
      return Files.isExecutable(Path.of(program));
    }
    String path = env.get("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isBlank() && Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }
}
