package dev.tandem.fleet;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the Tandem classes a child engine JVM needs come from. */
public final class TandemClasspath {
  /** System property naming the tandem jar explicitly (the build sets it for process tests). */
  public static final String JAR_PROPERTY = "tandem.jar";

  private TandemClasspath() {}

  /**
   * The {@code tandem.jar} system property if set; else the jar this class was loaded from (the
   * normal case: {@code java -jar tandem.jar router ...}); else, when running from class folders,
   * this JVM's class path.
   */
  public static String resolve() {
    String explicit = System.getProperty(JAR_PROPERTY);
    if (explicit != null && !explicit.isBlank()) {
      return Path.of(explicit).toAbsolutePath().toString();
    }
    try {
      Path source = Path.of(TandemClasspath.class.getProtectionDomain().getCodeSource()
          .getLocation().toURI());
      if (Files.isRegularFile(source)) {
        return source.toAbsolutePath().toString();
      }
    } catch (URISyntaxException | SecurityException | NullPointerException e) {
      // fall through to the class path of this JVM
    }
    return System.getProperty("java.class.path");
  }
}
