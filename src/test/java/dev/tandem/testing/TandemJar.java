package dev.tandem.testing;

import dev.tandem.fleet.TandemClasspath;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The packaged tandem jar for process tests, and the command lines that run it as a child JVM:
 * offline, serial GC (the CI machine has two cores), with the heap the caller names. The build
 * names the jar in the {@code tandem.jar} system property (failsafe sets it); without it,
 * {@code target/tandem.jar}.
 */
public final class TandemJar {

  private TandemJar() {}

  /** The jar; fails with what to do when it has not been built. */
  public static Path path() {
    Path jar = Path.of(System.getProperty(TandemClasspath.JAR_PROPERTY, "target/tandem.jar"))
        .toAbsolutePath();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: run mvn package first");
    }
    return jar;
  }

  /** {@code java -Xmx<heap> ... -jar tandem.jar args...}. */
  public static List<String> command(String heap, String... args) {
    List<String> cmd = jvm(heap);
    cmd.addAll(List.of("-jar", path().toString()));
    cmd.addAll(Arrays.asList(args));
    return cmd;
  }

  /** {@code java -Xmx<heap> ... -cp tandem.jar mainClass args...}: another entry point of the jar. */
  public static List<String> mainClassCommand(String heap, String mainClass, String... args) {
    return classpathCommand(heap, path().toString(), mainClass, args);
  }

  /**
   * {@code java -Xmx<heap> ... -cp tandem.jar:<test classes> probe args...}: a test program that
   * runs against the jar's classes as a process of its own.
   */
  public static List<String> probeCommand(String heap, Class<?> probe, String... args) {
    return classpathCommand(heap, path() + File.pathSeparator + testClasses(), probe.getName(),
        args);
  }

  /** A builder for {@code command}: DJL offline, stderr into stdout (callers say where it goes). */
  public static ProcessBuilder process(List<String> command) {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("DJL_OFFLINE", "true");
    return pb;
  }

  private static List<String> classpathCommand(String heap, String classpath, String mainClass,
      String... args) {
    List<String> cmd = jvm(heap);
    cmd.addAll(List.of("-cp", classpath, mainClass));
    cmd.addAll(Arrays.asList(args));
    return cmd;
  }

  private static List<String> jvm(String heap) {
    return new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + heap, "-XX:+UseSerialGC", "--add-modules=jdk.incubator.vector", "-Dai.djl.offline=true",
        "-Dhazelcast.phone.home.enabled=false"));
  }

  /** The folder (or jar) the test classes were loaded from. */
  private static String testClasses() {
    try {
      return Path.of(TandemJar.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
