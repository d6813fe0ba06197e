package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every way a model folder can be wrong gives a message naming the file and the problem. */
class ModelLoadErrorsTest {
  static final LlamaConfig SMALL_CFG = new LlamaConfig(300, 16, 24, 2, 2, 1, 8, 10000.0, 1e-5, 64, true, 0, 0);

  @TempDir
  Path dir;

  @BeforeEach
  void writeModel() throws IOException {
    RandomModelWriter.write(dir, SMALL_CFG, 1, SafetensorsDtype.F32);
  }

  private String failure() {
    ModelLoadException e = assertThrows(ModelLoadException.class, () -> LlamaModel.load(dir, 1).close());
    return e.getMessage();
  }

  private void editConfig(Consumer<JsonObject> edit) throws IOException {
    Path f = dir.resolve("config.json");
    JsonObject j = new JsonObject(Files.readString(f));
    edit.accept(j);
    Files.writeString(f, j.encodePrettily());
  }

  private static void assertMentions(String message, String... parts) {
    for (String p : parts) {
      assertTrue(message.contains(p), "message \"" + message + "\" should mention " + p);
    }
  }

  @Test
  void missingConfig() throws IOException {
    Files.delete(dir.resolve("config.json"));
    assertMentions(failure(), "config.json", "missing");
  }

  @Test
  void configNotJson() throws IOException {
    Files.writeString(dir.resolve("config.json"), "{ not json");
    assertMentions(failure(), "config.json", "JSON");
  }

  @Test
  void unsupportedArchitecture() throws IOException {
    editConfig(j -> j.put("architectures", List.of("GPT2LMHeadModel")).put("model_type", "gpt2"));
    assertMentions(failure(), "config.json", "unsupported architecture GPT2LMHeadModel");
  }

  @Test
  void slidingWindowMistralIsRejectedButFullAttentionMistralLoads() throws Exception {
    editConfig(j -> j.put("architectures", List.of("MistralForCausalLM")).put("model_type", "mistral")
        .putNull("sliding_window"));
    LlamaModel.load(dir, 1).close();
    editConfig(j -> j.put("sliding_window", 16));
    assertMentions(failure(), "config.json", "sliding_window 16");
  }

  @Test
  void missingOrInvalidFields() throws IOException {
    editConfig(j -> j.remove("hidden_size"));
    assertMentions(failure(), "config.json", "\"hidden_size\"");
    editConfig(j -> j.put("hidden_size", -3));
    assertMentions(failure(), "\"hidden_size\" must be a positive integer");
    editConfig(j -> j.put("hidden_size", 16).put("num_attention_heads", 3).put("num_key_value_heads", 2));
    assertMentions(failure(), "not a multiple of num_key_value_heads");
    editConfig(j -> j.put("num_attention_heads", 2).put("rope_scaling", new JsonObject().put("type", "yarn")));
    assertMentions(failure(), "rope_scaling");
  }

  @Test
  void noWeightFiles() throws IOException {
    Files.delete(dir.resolve("model.safetensors"));
    assertMentions(failure(), dir.toString(), "no weights");
  }

  @Test
  void truncatedWeights() throws IOException {
    Path f = dir.resolve("model.safetensors");
    byte[] all = Files.readAllBytes(f);
    Files.write(f, java.util.Arrays.copyOf(all, all.length - 100));
    assertMentions(failure(), "model.safetensors", "truncated");
    Files.write(f, java.util.Arrays.copyOf(all, 5));
    assertMentions(failure(), "model.safetensors", "truncated");
  }

  @Test
  void unsupportedDtype() throws IOException {
    String header = "{\"model.embed_tokens.weight\":{\"dtype\":\"I8\",\"shape\":[300,16],\"data_offsets\":[0,4800]}}";
    writeRaw(dir.resolve("model.safetensors"), header, 4800);
    assertMentions(failure(), "model.safetensors", "unsupported dtype I8", "model.embed_tokens.weight");
  }

  @Test
  void offsetsThatDoNotFitTheShape() throws IOException {
    String header = "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,8]}}";
    writeRaw(dir.resolve("model.safetensors"), header, 8);
    assertMentions(failure(), "model.safetensors", "tensor a", "data_offsets");
  }

  @Test
  void shapeNotMatchingConfig() throws IOException {
    editConfig(j -> j.put("intermediate_size", 32));
    assertMentions(failure(), "model.safetensors", "model.layers.0.mlp.gate_proj.weight", "[24, 16]", "[32, 16]");
  }

  @Test
  void missingTensorAndMissingLmHead() throws Exception {
    rewriteWithout("model.norm.weight");
    assertMentions(failure(), "model.safetensors", "missing tensor model.norm.weight");
    RandomModelWriter.write(dir, SMALL_CFG, 1, SafetensorsDtype.F32);
    editConfig(j -> j.put("tie_word_embeddings", false));
    assertMentions(failure(), "lm_head.weight", "tie_word_embeddings");
  }

  @Test
  void shardsViaIndexOrGlobLoadTheSameModel() throws Exception {
    String single;
    try (LlamaModel m = LlamaModel.load(dir, 1)) {
      single = m.fingerprint();
    }
    List<SafetensorsWriter.Entry> first = new ArrayList<>();
    List<SafetensorsWriter.Entry> second = new ArrayList<>();
    JsonObject map = new JsonObject();
    try (SafetensorsFile f = SafetensorsFile.open(dir.resolve("model.safetensors"))) {
      for (SafetensorsFile.TensorInfo t : f.tensors().values()) {
        float[] v = f.readFloats(t.name(), null);
        boolean early = t.name().startsWith("model.layers.0.");
        (early ? first : second).add(new SafetensorsWriter.Entry(t.name(), t.shape(), () -> v));
        map.put(t.name(), early ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors");
      }
    }
    Files.delete(dir.resolve("model.safetensors"));
    SafetensorsWriter.write(dir.resolve("model-00001-of-00002.safetensors"), first, SafetensorsDtype.F32);
    SafetensorsWriter.write(dir.resolve("model-00002-of-00002.safetensors"), second, SafetensorsDtype.BF16);
    try (LlamaModel m = LlamaModel.load(dir, 1)) {
      assertEquals(SMALL_CFG, m.config()); // found by *.safetensors glob
    }
    Files.writeString(dir.resolve("model.safetensors.index.json"),
        new JsonObject().put("metadata", new JsonObject()).put("weight_map", map).encode());
    LlamaModel.load(dir, 1).close();
    Files.delete(dir.resolve("model-00002-of-00002.safetensors"));
    assertMentions(failure(), "model-00002-of-00002.safetensors", "missing", "model.safetensors.index.json");
    assertTrue(single.length() == 64);
  }

  private void rewriteWithout(String name) throws Exception {
    Path file = dir.resolve("model.safetensors");
    List<SafetensorsWriter.Entry> entries = new ArrayList<>();
    try (SafetensorsFile f = SafetensorsFile.open(file)) {
      for (SafetensorsFile.TensorInfo t : f.tensors().values()) {
        if (!t.name().equals(name)) {
          float[] v = f.readFloats(t.name(), null);
          entries.add(new SafetensorsWriter.Entry(t.name(), t.shape(), () -> v));
        }
      }
    }
    SafetensorsWriter.write(file, entries, SafetensorsDtype.F32);
  }

  private static void writeRaw(Path file, String header, int dataBytes) throws IOException {
    byte[] h = header.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(8 + h.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(h.length).put(h);
    Files.write(file, b.array());
  }
}
