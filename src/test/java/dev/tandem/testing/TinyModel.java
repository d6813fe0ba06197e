package dev.tandem.testing;

import dev.tandem.cli.MakeModelCommand;
import dev.tandem.engine.model.ModelPreset;
import dev.tandem.engine.model.SafetensorsDtype;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The tiny model folder of the tests: what {@code tandem make-model DIR --preset tiny --seed S}
 * writes (about a million parameters, F32, with its tokenizer), written once per test JVM into a
 * temporary folder that goes when the JVM exits. Engines only read it, so tests share it.
 */
public final class TinyModel {
  /** The seed of {@link #shared()}: make-model's default. */
  public static final long SEED = 0;

  private static final Map<Long, Path> MADE = new HashMap<>();

  private TinyModel() {}

  /** The tiny model with seed {@link #SEED}. */
  public static Path shared() {
    return seeded(SEED);
  }

  /** The tiny model with another seed: same shape and tokenizer size, other weights. */
  public static synchronized Path seeded(long seed) {
    return MADE.computeIfAbsent(seed, TinyModel::write);
  }

  /**
   * A private copy of the shared model in {@code dir}, for tests that find their engines by the
   * model path on the engines' command lines.
   */
  public static Path copyTo(Path dir) throws IOException {
    Path copy = Files.createDirectories(dir);
    try (Stream<Path> files = Files.list(shared())) {
      for (Path f : files.toList()) {
        Files.copy(f, copy.resolve(f.getFileName()));
      }
    }
    return copy;
  }

  /**
   * A model folder with an empty tokenizer and no weights: enough for the router's configuration
   * checks, for tests whose engines are fakes and need no model.
   */
  public static Path stub(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("tokenizer.json"), "{}");
    return dir;
  }

  private static Path write(long seed) {
    try {
      Path dir = Files.createTempDirectory("tandem-tiny-model-" + seed + "-");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
      MakeModelCommand.write(dir, ModelPreset.TINY, seed, SafetensorsDtype.F32);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException("writing the tiny model failed", e);
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover temp folder is harmless
    }
  }
}
