package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class MakeModelCommandTest {
  static final List<String> FILES = List.of("config.json", "model.safetensors", "tokenizer.json",
      "tokenizer_config.json", "generation_config.json");

  @TempDir
  Path tmp;

  private int run(String... args) {
    return new CommandLine(new Tandem()).execute(args);
  }

  @Test
  void sameSeedGivesIdenticalBytesAndOtherSeedDiffers() throws Exception {
    assertEquals(0, run("make-model", tmp.resolve("a").toString(), "--seed", "7"));
    assertEquals(0, run("make-model", tmp.resolve("b").toString(), "--seed", "7", "--preset", "tiny"));
    assertEquals(0, run("make-model", tmp.resolve("c").toString(), "--seed", "8"));
    for (String f : FILES) {
      byte[] a = Files.readAllBytes(tmp.resolve("a").resolve(f));
      assertTrue(a.length > 0, f);
      assertArrayEquals(a, Files.readAllBytes(tmp.resolve("b").resolve(f)), f + " differs for the same seed");
    }
    assertFalse(Arrays.equals(Files.readAllBytes(tmp.resolve("a/model.safetensors")),
        Files.readAllBytes(tmp.resolve("c/model.safetensors"))), "another seed must give other weights");
  }

  @Test
  void bf16WeightsAreHalfTheSize() throws Exception {
    assertEquals(0, run("make-model", tmp.resolve("f").toString()));
    assertEquals(0, run("make-model", tmp.resolve("h").toString(), "--dtype", "bf16"));
    long f = Files.size(tmp.resolve("f/model.safetensors"));
    long h = Files.size(tmp.resolve("h/model.safetensors"));
    assertTrue(f > 3_000_000 && Math.abs(f - 2 * h) < 20_000, f + " vs " + h);
    assertTrue(Files.readString(tmp.resolve("h/config.json")).contains("bfloat16"));
  }

  @Test
  void familyWritesThatFamilysFolder() throws Exception {
    assertEquals(0, run("make-model", tmp.resolve("q").toString(), "--family", "qwen3", "--seed", "2"));
    assertEquals(0, run("make-model", tmp.resolve("q2").toString(), "--family", "qwen3", "--seed", "2"));
    for (String f : FILES) {
      assertArrayEquals(Files.readAllBytes(tmp.resolve("q").resolve(f)), Files.readAllBytes(tmp.resolve("q2").resolve(f)), f);
    }
    assertTrue(Files.readString(tmp.resolve("q/config.json")).contains("Qwen3ForCausalLM"));
    assertTrue(Files.readString(tmp.resolve("q/tokenizer_config.json")).contains("<think>"));
    assertEquals(0, run("make-model", tmp.resolve("l").toString(), "--family", "llama3"));
    assertTrue(Files.readString(tmp.resolve("l/config.json")).contains("\"rope_type\" : \"llama3\""));
    assertEquals(2, run("make-model", tmp.resolve("x").toString(), "--family", "gpt2"));
  }

  @Test
  void badUsageExitsWithTwo() {
    assertEquals(2, run("make-model"));
    assertEquals(2, run("make-model", tmp.toString(), "--preset", "huge"));
    assertEquals(2, run("make-model", tmp.toString(), "--dtype", "int8"));
    assertEquals(2, run("make-model", tmp.toString(), "--seed", "x"));
  }
}
