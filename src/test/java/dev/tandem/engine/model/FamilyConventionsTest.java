package dev.tandem.engine.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.chat.ChatSetup;
import dev.tandem.chat.ChatTemplate;
import dev.tandem.tokenizer.DjlTokenizer;
import dev.tandem.tokenizer.TokenizerSpec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What make-model --family writes: a loadable folder in the family's conventions, the same bytes per seed. */
class FamilyConventionsTest {
  @TempDir
  Path dir;

  static Map<String, String> sha256(Path folder) throws Exception {
    Map<String, String> out = new TreeMap<>();
    try (var files = Files.list(folder)) {
      for (Path p : files.toList()) {
        out.put(p.getFileName().toString(),
            HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p))));
      }
    }
    return out;
  }

  /** The hashes of `tandem make-model DIR --preset tiny --seed 7` as built before families existed. */
  @Test
  void theLlamaFamilyIsTheOriginalModelByteForByte() throws Exception {
    FamilyConventions.LLAMA.write(dir, ModelPreset.TINY, 7, SafetensorsDtype.F32);
    assertEquals(Map.of(
        "config.json", "1905b43204137b940884332aa3cc94cf0a3c0e6e9b4a4091e11853d706dd79eb",
        "generation_config.json", "cab4e967e3b76bf3075c5ce56865b160e1f8ffbf08d946543d1ebb568c70c69c",
        "model.safetensors", "325b6efd9f508a437c4d50ba6284f2f31d0d0f726d47d7d545fe4098da0b6a0f",
        "tokenizer.json", "98271bdecec259316a3bb0478380683b3f3fe71d6498f25af427016066ad2b2f",
        "tokenizer_config.json", "94a5ace460481317c38599ce9b141ffc57fa4c2fed3d63a5423381ad5e6fdd01"), sha256(dir));
  }

  @ParameterizedTest
  @EnumSource(FamilyConventions.class)
  void sameSeedSameBytes(FamilyConventions family) throws Exception {
    family.write(dir.resolve("a"), ModelPreset.TINY, 5, SafetensorsDtype.BF16);
    family.write(dir.resolve("b"), ModelPreset.TINY, 5, SafetensorsDtype.BF16);
    family.write(dir.resolve("c"), ModelPreset.TINY, 6, SafetensorsDtype.BF16);
    assertEquals(sha256(dir.resolve("a")), sha256(dir.resolve("b")));
    assertNotEquals(sha256(dir.resolve("a")).get("model.safetensors"), sha256(dir.resolve("c")).get("model.safetensors"));
  }

  @ParameterizedTest
  @EnumSource(value = FamilyConventions.class, names = {"LLAMA3", "QWEN2", "QWEN3"})
  void theFolderLoadsAsItsFamily(FamilyConventions family) throws Exception {
    family.write(dir, ModelPreset.TINY, 1, SafetensorsDtype.F32);
    LlamaConfig c = LlamaConfig.load(dir);
    assertEquals(family.config(ModelPreset.TINY), c);
    JsonObject json = new JsonObject(Files.readString(dir.resolve("config.json")));
    assertEquals(c.family().architecture(), json.getJsonArray("architectures").getString(0));
    assertEquals(c.family().modelType(), json.getString("model_type"));
    try (SafetensorsFile f = SafetensorsFile.open(dir.resolve("model.safetensors"))) {
      assertEquals(family == FamilyConventions.QWEN2, f.tensors().containsKey("model.layers.0.self_attn.q_proj.bias"));
      assertEquals(family == FamilyConventions.QWEN2, f.tensors().containsKey("model.layers.3.self_attn.v_proj.bias"));
      assertFalse(f.tensors().containsKey("model.layers.0.self_attn.o_proj.bias"));
      assertEquals(family == FamilyConventions.QWEN3, f.tensors().containsKey("model.layers.0.self_attn.q_norm.weight"));
      assertEquals(family == FamilyConventions.QWEN3, f.tensors().containsKey("model.layers.2.self_attn.k_norm.weight"));
    }
    switch (family) {
      case LLAMA3 -> {
        assertEquals(new RopeScaling(4.0, 1.0, 4.0, 1024), c.ropeScaling());
        assertEquals(3, c.eosTokenIds().size());
      }
      case QWEN3 -> assertEquals(2 * c.qDim(), 4 * c.hiddenSize(), "head_dim is twice hidden / heads");
      default -> assertTrue(c.qkvBias());
    }
    GenerationConfig g = GenerationConfig.load(dir);
    assertTrue(g.temperature() != null && g.temperature() < 1, "the family's sampling defaults");
    assertEquals(family == FamilyConventions.LLAMA3 ? null : Integer.valueOf(20), g.topK());
    TokenizerSpec t = family.tokenizer();
    String endOfTurn = family == FamilyConventions.LLAMA3 ? "<|eot_id|>" : "<|im_end|>";
    int[] stops = g.stopTokenIds(c);
    assertTrue(Arrays.stream(stops).anyMatch(id -> id == t.idOf(endOfTurn, c.vocabSize())),
        "the end-of-turn token stops generation: " + Arrays.toString(stops));
    try (LlamaModel model = LlamaModel.load(dir, 1)) {
      float[] logits = model.forward(List.of(new ForwardChunk(new int[] {c.bosTokenId(), 40, 41}, 0,
          new int[] {0, 1, 2}, true)), new ArrayKvStore(c, 3))[0];
      assertEquals(c.vocabSize(), logits.length);
    }
  }

  /** Special tokens are single ids at the end of the vocabulary; the chat template's markers encode to them. */
  @ParameterizedTest
  @EnumSource(value = FamilyConventions.class, names = {"LLAMA3", "QWEN2", "QWEN3"})
  void specialTokensAreSingleIdsAndTheTemplateUsesThem(FamilyConventions family) throws Exception {
    family.write(dir, ModelPreset.TINY, 2, SafetensorsDtype.BF16);
    TokenizerSpec spec = family.tokenizer();
    int vocab = ModelPreset.TINY.config().vocabSize();
    try (DjlTokenizer tok = DjlTokenizer.load(dir)) {
      assertEquals(vocab, tok.vocabSize());
      for (TokenizerSpec.AddedToken t : spec.added()) {
        int id = spec.idOf(t.content(), vocab);
        assertTrue(id >= vocab - spec.added().size(), t.content() + " sits at the end of the vocabulary");
        assertArrayEquals(new int[] {id}, tok.encode(t.content()), t.content());
        int[] around = tok.encode("ok" + t.content() + "ok");
        int[] ok = tok.encode("ok");
        int[] want = new int[2 * ok.length + 1];
        System.arraycopy(ok, 0, want, 0, ok.length);
        want[ok.length] = id;
        System.arraycopy(ok, 0, want, ok.length + 1, ok.length);
        assertArrayEquals(want, around, "split out of the text around it: " + t.content());
        assertEquals(t.special() ? "" : t.content(), tok.decode(new int[] {id}), "decoded with specials skipped");
      }
      ChatTemplate template = ChatSetup.load(null, dir, null).requireTemplate();
      JsonArray messages = new JsonArray().add(new JsonObject().put("role", "system").put("content", "Be brief."))
          .add(new JsonObject().put("role", "user").put("content", "Hi there"));
      int[] ids = tok.encode(template.render(messages, null, null, true, new JsonObject()));
      List<String> markers = switch (family) {
        case LLAMA3 -> List.of("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>");
        default -> List.of("<|im_start|>", "<|im_end|>");
      };
      for (String m : markers) {
        int id = spec.idOf(m, vocab);
        assertTrue(Arrays.stream(ids).anyMatch(i -> i == id), m + " in " + Arrays.toString(ids));
      }
      if (family == FamilyConventions.LLAMA3) {
        assertEquals(spec.idOf("<|begin_of_text|>", vocab), ids[0]);
      }
    }
  }
}
