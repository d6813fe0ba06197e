package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** generation_config.json: eos ids that end a sequence besides config.json's, and sampling defaults. */
class GenerationConfigTest {
  @TempDir
  Path dir;

  @Test
  void generationConfigGivesEosIdsAndSamplingDefaults() throws Exception {
    JsonObject qwen3Gen = new JsonObject().put("bos_token_id", 151643).put("do_sample", true)
        .put("eos_token_id", List.of(151645, 151643)).put("pad_token_id", 151643).put("temperature", 0.6)
        .put("top_k", 20).put("top_p", 0.95);
    GenerationConfig g = GenerationConfig.fromJson(qwen3Gen, "generation_config.json");
    assertEquals(new GenerationConfig(List.of(151645, 151643), 0.6, 0.95, 20), g);
    LlamaConfig c = LlamaConfig.fromJson(FamilyConfigTest.qwen3(), "config.json");
    assertEquals(List.of(151645, 151643), java.util.Arrays.stream(g.stopTokenIds(c)).boxed().toList(),
        "config.json's eos first, then generation_config's others");
    GenerationConfig single = GenerationConfig.fromJson(new JsonObject().put("eos_token_id", 7), "g");
    assertEquals(List.of(7), single.eosTokenIds());
    assertEquals(GenerationConfig.NONE.temperature(), single.temperature());
    for (JsonObject bad : List.of(new JsonObject().put("temperature", -1), new JsonObject().put("top_p", 0),
        new JsonObject().put("top_p", 1.5), new JsonObject().put("top_k", 2.5),
        new JsonObject().put("eos_token_id", "x"), new JsonObject().put("temperature", "hot"))) {
      assertThrows(ModelLoadException.class, () -> GenerationConfig.fromJson(bad, "generation_config.json"),
          bad.encode());
    }
  }

  @Test
  void aFolderWithoutOneHasNoDefaults() throws Exception {
    assertEquals(GenerationConfig.NONE, GenerationConfig.load(dir));
    java.nio.file.Files.writeString(dir.resolve(GenerationConfig.FILE_NAME), "[1]");
    assertThrows(ModelLoadException.class, () -> GenerationConfig.load(dir));
  }
}
