package dev.tandem.engine.model;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Helpers that write model folders for tests. */
final class TestModels {
  private TestModels() {}

  /** Rewrites dir/model.safetensors with every matrix (2-D tensor) multiplied by {@code factor}. */
  static void rewriteScaled(Path dir, float factor) throws Exception {
    Path file = dir.resolve("model.safetensors");
    List<SafetensorsWriter.Entry> entries = new ArrayList<>();
    try (SafetensorsFile f = SafetensorsFile.open(file)) {
      for (SafetensorsFile.TensorInfo t : f.tensors().values()) {
        float[] v = f.readFloats(t.name(), null);
        if (t.shape().length == 2) {
          for (int i = 0; i < v.length; i++) {
            v[i] *= factor;
          }
        }
        entries.add(new SafetensorsWriter.Entry(t.name(), t.shape(), () -> v));
      }
    }
    SafetensorsWriter.write(file, entries, SafetensorsDtype.F32);
  }
}
