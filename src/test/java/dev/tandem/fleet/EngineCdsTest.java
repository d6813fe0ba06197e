package dev.tandem.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EngineCdsTest {
  @TempDir Path dir;

  @Test
  void engineZeroWritesTheArchiveOnceAndThenEveryEngineUsesIt() throws Exception {
    Path jar = Files.writeString(dir.resolve("tandem.jar"), "jar");
    EngineCds cds = EngineCds.in(dir.resolve("cds"), jar.toString(), List.of("-Xmx256m"));
    List<String> first = cds.jvmOptions(0);
    assertTrue(first.get(0).startsWith("-XX:ArchiveClassesAtExit="), first.toString());
    assertEquals(List.of(), cds.jvmOptions(1), "one writer only");

    // What engine 0's JVM does at exit, then the supervisor after the engines stopped:
    Path pending = Path.of(first.get(0).substring("-XX:ArchiveClassesAtExit=".length()));
    Files.createDirectories(pending.getParent());
    Files.writeString(pending, "archive bytes");
    cds.publish();
    assertFalse(Files.exists(pending));
    assertEquals("archive bytes", Files.readString(cds.archive()));
    for (int id = 0; id < 3; id++) {
      assertEquals(List.of("-XX:SharedArchiveFile=" + cds.archive(), "-Xlog:cds*=off"),
          cds.jvmOptions(id));
    }
  }

  @Test
  void archiveIsKeyedByJvmOptionsAndClassPath() throws Exception {
    Path jar = Files.writeString(dir.resolve("tandem.jar"), "jar");
    Path a = EngineCds.in(dir, jar.toString(), List.of("-Xmx256m")).archive();
    assertEquals(a, EngineCds.in(dir, jar.toString(), List.of("-Xmx256m")).archive());
    assertNotEquals(a, EngineCds.in(dir, jar.toString(), List.of("-Xmx512m")).archive());
    Files.writeString(jar, "a rebuilt jar");
    assertNotEquals(a, EngineCds.in(dir, jar.toString(), List.of("-Xmx256m")).archive());
  }

  @Test
  void onlyTheNewestArchivesAreKept() throws Exception {
    Path cdsDir = Files.createDirectories(dir.resolve("cds"));
    for (int i = 0; i < 6; i++) {
      Path old = Files.writeString(cdsDir.resolve("engine-00" + i + ".jsa"), "old");
      Files.setLastModifiedTime(old, java.nio.file.attribute.FileTime.fromMillis(1_000_000L * (i + 1)));
    }
    Path unrelated = Files.writeString(cdsDir.resolve("notes.txt"), "keep me");
    EngineCds cds = EngineCds.in(cdsDir, "/nope.jar", List.of());
    Path pending = Path.of(cds.jvmOptions(0).get(0).substring("-XX:ArchiveClassesAtExit=".length()));
    Files.writeString(pending, "new archive");
    cds.publish();
    try (var files = Files.list(cdsDir)) {
      assertEquals(java.util.Set.of(cds.archive().getFileName().toString(), "engine-005.jsa",
          "engine-004.jsa", "engine-003.jsa", "notes.txt"),
          files.map(f -> f.getFileName().toString()).collect(java.util.stream.Collectors.toSet()));
    }
    assertTrue(Files.exists(unrelated));
  }

  @Test
  void publishWithoutAnArchiveWrittenDoesNothing() {
    EngineCds cds = EngineCds.in(dir, "/nope.jar", List.of());
    cds.publish();
    assertFalse(Files.exists(cds.archive()));
  }
}
