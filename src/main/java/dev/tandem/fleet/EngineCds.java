package dev.tandem.fleet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A dynamic class-data-sharing archive for builtin engine JVMs: class loading and verification
 * are most of an engine's start-up CPU, and N engines starting at once compete for the cores.
 * With no archive yet, engine 0 writes one when it exits normally (at the router's stop); later
 * fleets start every engine from it. The archive is keyed by runtime, class path and JVM options,
 * so it is never used with anything else; a missing, stale or broken archive only means no
 * sharing (the JVM checks it), never a failed start.
 */
public final class EngineCds {
  private static final Logger LOG = LoggerFactory.getLogger(EngineCds.class);
  /** CDS reports (e.g. classes it cannot archive) would fill the engine logs. */
  private static final String QUIET = "-Xlog:cds*=off";
  /** Archives kept in the folder (the newest). */
  static final int KEEP = 4;

  private final Path archive;
  private final Path pending;

  private EngineCds(Path archive) {
    this.archive = archive;
    this.pending = archive.resolveSibling(archive.getFileName() + "." + ProcessHandle.current().pid()
        + ".tmp");
  }

  /** The archive in {@code dir} for engines run with this class path and these JVM options. */
  public static EngineCds in(Path dir, String classpath, List<String> jvmOpts) {
    return new EngineCds(dir.resolve("engine-" + key(classpath, jvmOpts) + ".jsa"));
  }

  public Path archive() {
    return archive;
  }

  /**
   * JVM options for engine {@code id}: use the archive, or (engine 0, no archive yet) write it.
   * Blocking (looks at files).
   */
  public List<String> jvmOptions(int id) {
    if (Files.isRegularFile(archive)) {
      return List.of("-XX:SharedArchiveFile=" + archive, QUIET);
    }
    if (id == 0) {
      try {
        // The JVM writes the archive at exit only into an existing folder.
        Files.createDirectories(archive.getParent());
      } catch (IOException e) {
        LOG.warn("no engine class-data archive: cannot create {}: {}", archive.getParent(),
            e.toString());
        return List.of();
      }
      return List.of("-XX:ArchiveClassesAtExit=" + pending, QUIET);
    }
    return List.of();
  }

  /**
   * After the engines have stopped: publishes an archive an engine wrote (atomically, so that
   * concurrent fleets never see half a file). Blocking; never throws.
   */
  public void publish() {
    try {
      if (Files.isRegularFile(pending) && Files.size(pending) > 0) {
        Files.createDirectories(archive.getParent());
        Files.move(pending, archive, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        LOG.info("engine class-data archive written: {} (later fleets start faster)", archive);
        pruneOldArchives();
      }
      Files.deleteIfExists(pending);
    } catch (IOException e) {
      LOG.warn("could not publish the engine class-data archive {}: {}", archive, e.toString());
    }
  }

  /**
   * Every rebuilt jar or new set of JVM options gets its own archive (about 17 MB): keep the
   * {@link #KEEP} newest. A running engine keeps a deleted archive mapped; one about to start
   * without it simply starts without sharing.
   */
  private void pruneOldArchives() throws IOException {
    List<Path> archives;
    try (var files = Files.list(archive.getParent())) {
      archives = files.filter(f -> f.getFileName().toString().matches("engine-[0-9a-f]+\\.jsa"))
          .sorted(java.util.Comparator.comparing(EngineCds::modified).reversed()).toList();
    }
    for (Path old : archives.subList(Math.min(KEEP, archives.size()), archives.size())) {
      Files.deleteIfExists(old);
    }
  }

  private static java.nio.file.attribute.FileTime modified(Path file) {
    try {
      return Files.getLastModifiedTime(file);
    } catch (IOException e) {
      return java.nio.file.attribute.FileTime.fromMillis(0);
    }
  }

  private static String key(String classpath, List<String> jvmOpts) {
    StringBuilder key = new StringBuilder()
        .append(System.getProperty("java.home")).append('\n')
        .append(System.getProperty("java.vm.version")).append('\n')
        .append(String.join(" ", jvmOpts)).append('\n');
    for (String entry : classpath.split(java.io.File.pathSeparator)) {
      Path path = Path.of(entry);
      key.append(entry).append(' ');
      try {
        key.append(Files.size(path)).append(' ').append(Files.getLastModifiedTime(path));
      } catch (IOException e) {
        key.append("missing");
      }
      key.append('\n');
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(key.toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }
}
