package dev.tandem.engine.model;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Helpers that write model folders for tests. */
final class TestModels {
  private TestModels() {}

  /** Rewrites dir/model.safetensors with every matrix (2-D tensor) multiplied by {@code factor}. */
  static void rewriteScaled(Path dir, float factor) throws Exception {
    rewrite(dir, factor, false);
  }

  /**
   * As {@link #rewriteScaled}, and biases scaled too, and the q/k norm weights (ones when written)
   * drawn around 1, so that a bias or norm applied wrongly changes the results.
   */
  static void rewriteFamily(Path dir, float factor) throws Exception {
    rewrite(dir, factor, true);
  }

  private static void rewrite(Path dir, float factor, boolean vectors) throws Exception {
    Path file = dir.resolve("model.safetensors");
    List<SafetensorsWriter.Entry> entries = new ArrayList<>();
    try (SafetensorsFile f = SafetensorsFile.open(file)) {
      for (SafetensorsFile.TensorInfo t : f.tensors().values()) {
        float[] v = f.readFloats(t.name(), null);
        boolean bias = vectors && t.name().endsWith(".bias");
        if (t.shape().length == 2 || bias) {
          for (int i = 0; i < v.length; i++) {
            v[i] *= factor;
          }
        } else if (vectors && (t.name().endsWith("q_norm.weight") || t.name().endsWith("k_norm.weight"))) {
          java.util.Random r = new java.util.Random(t.name().hashCode());
          for (int i = 0; i < v.length; i++) {
            v[i] = 1f + 0.5f * (float) r.nextGaussian();
          }
        }
        entries.add(new SafetensorsWriter.Entry(t.name(), t.shape(), () -> v));
      }
    }
    SafetensorsWriter.write(file, entries, SafetensorsDtype.F32);
  }
}
