package dev.tandem.engine.model;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The safetensors shards of a model folder: {@code model.safetensors}, or the shards named by
 * {@code model.safetensors.index.json}, or else every {@code *.safetensors} file. Maps each tensor
 * name to the shard that holds it.
 */
final class WeightFiles implements AutoCloseable {
  static final String SINGLE = "model.safetensors";
  static final String INDEX = "model.safetensors.index.json";

  private final List<SafetensorsFile> files;
  private final Map<String, SafetensorsFile> byTensor = new TreeMap<>();

  private WeightFiles(List<SafetensorsFile> files) throws ModelLoadException {
    this.files = files;
    for (SafetensorsFile f : files) {
      for (String name : f.tensors().keySet()) {
        SafetensorsFile prev = byTensor.put(name, f);
        if (prev != null) {
          throw new ModelLoadException(f.path() + ": tensor " + name + " is also in " + prev.path());
        }
      }
    }
  }

  static WeightFiles open(Path dir) throws ModelLoadException {
    List<Path> paths = shardPaths(dir);
    List<SafetensorsFile> opened = new ArrayList<>();
    try {
      for (Path p : paths) {
        opened.add(SafetensorsFile.open(p));
      }
      WeightFiles w = new WeightFiles(opened);
      opened = null;
      return w;
    } finally {
      if (opened != null) {
        opened.forEach(SafetensorsFile::close);
      }
    }
  }

  private static List<Path> shardPaths(Path dir) throws ModelLoadException {
    Path index = dir.resolve(INDEX);
    if (Files.isRegularFile(index)) {
      JsonObject map;
      try {
        map = new JsonObject(Files.readString(index, StandardCharsets.UTF_8)).getJsonObject("weight_map");
      } catch (IOException | DecodeException | ClassCastException e) {
        throw new ModelLoadException(index + ": cannot read the shard index: " + e.getMessage(), e);
      }
      if (map == null || map.isEmpty()) {
        throw new ModelLoadException(index + ": has no \"weight_map\"");
      }
      TreeSet<String> names = new TreeSet<>();
      map.forEach(e -> names.add(String.valueOf(e.getValue())));
      List<Path> paths = new ArrayList<>();
      for (String n : names) {
        Path p = dir.resolve(n);
        if (!Files.isRegularFile(p)) {
          throw new ModelLoadException(p + ": missing (listed in " + INDEX + ")");
        }
        paths.add(p);
      }
      return paths;
    }
    Path single = dir.resolve(SINGLE);
    if (Files.isRegularFile(single)) {
      return List.of(single);
    }
    try (Stream<Path> s = Files.list(dir)) {
      List<Path> all = s.filter(p -> p.getFileName().toString().endsWith(".safetensors") && Files.isRegularFile(p))
          .sorted().toList();
      if (all.isEmpty()) {
        throw new ModelLoadException(dir + ": no weights (expected " + SINGLE + ", " + INDEX
            + " or *.safetensors files)");
      }
      return all;
    } catch (IOException e) {
      throw new ModelLoadException(dir + ": cannot list the folder: " + e.getMessage(), e);
    }
  }

  boolean has(String name) {
    return byTensor.containsKey(name);
  }

  /** Reads a tensor widened to float, checking that its shape is {@code expected}. */
  float[] read(String name, MessageDigest digest, long... expected) throws ModelLoadException {
    return find(name, expected).readFloats(name, digest);
  }

  /** Reads a matrix in its stored dtype, checking that its shape is {@code expected}. */
  RawTensor readRaw(String name, MessageDigest digest, long... expected) throws ModelLoadException {
    return find(name, expected).readRaw(name, digest);
  }

  private SafetensorsFile find(String name, long... expected) throws ModelLoadException {
    SafetensorsFile f = byTensor.get(name);
    if (f == null) {
      throw new ModelLoadException(describe() + ": missing tensor " + name);
    }
    SafetensorsFile.TensorInfo t = f.tensors().get(name);
    if (!java.util.Arrays.equals(t.shape(), expected)) {
      throw new ModelLoadException(f.path() + ": tensor " + name + " has shape " + t.shapeString()
          + " but config.json implies " + new SafetensorsFile.TensorInfo(name, t.dtype(), expected, 0, 0).shapeString());
    }
    return f;
  }

  private String describe() {
    return files.size() == 1 ? files.get(0).path().toString()
        : files.get(0).path().getParent() + " (" + files.size() + " safetensors shards)";
  }

  @Override
  public void close() {
    files.forEach(SafetensorsFile::close);
  }
}
