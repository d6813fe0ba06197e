package dev.tandem.cli;

import dev.tandem.engine.model.FamilyConventions;
import dev.tandem.engine.model.ModelPreset;
import dev.tandem.engine.model.SafetensorsDtype;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tandem make-model}: writes a seeded random model folder of a family in Hugging Face layout. */
@Command(name = "make-model", mixinStandardHelpOptions = true,
    description = "Write a seeded random model folder (HF layout) in a family's conventions: config.json, "
        + "model.safetensors, tokenizer.json, tokenizer_config.json (special tokens, chat template), "
        + "generation_config.json. Same seed, same bytes.")
public final class MakeModelCommand implements Callable<Integer> {

  /** Weight dtypes the command writes. */
  enum Dtype {
    f32(SafetensorsDtype.F32), bf16(SafetensorsDtype.BF16);

    final SafetensorsDtype dtype;

    Dtype(SafetensorsDtype dtype) {
      this.dtype = dtype;
    }
  }

  /** Accepted preset names (lower case on the command line). */
  enum Preset {
    tiny(ModelPreset.TINY), small(ModelPreset.SMALL);

    final ModelPreset preset;

    Preset(ModelPreset preset) {
      this.preset = preset;
    }
  }

  /** Accepted family names (lower case on the command line). */
  enum Family {
    llama(FamilyConventions.LLAMA), llama3(FamilyConventions.LLAMA3), qwen2(FamilyConventions.QWEN2),
    qwen3(FamilyConventions.QWEN3);

    final FamilyConventions conventions;

    Family(FamilyConventions conventions) {
      this.conventions = conventions;
    }
  }

  @Parameters(index = "0", paramLabel = "DIR", description = "Folder to write (created if missing).")
  Path dir;

  @Option(names = "--preset", defaultValue = "tiny",
      description = "tiny (~1M parameters, tests) or small (SmolLM2-135M shape, benchmarks). Default: ${DEFAULT-VALUE}.")
  Preset preset;

  @Option(names = "--family", defaultValue = "llama",
      description = "llama (Tandem's original: Llama architecture, ChatML specials), llama3 (rope_scaling llama3, "
          + "header-id template), qwen2 (q/k/v biases, ChatML with tools), qwen3 (q/k norms, ChatML with tools "
          + "and thinking). Default: ${DEFAULT-VALUE}.")
  Family family;

  @Option(names = "--seed", defaultValue = "0", description = "Random seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(names = "--dtype", defaultValue = "f32", description = "Weight dtype: f32 or bf16. Default: ${DEFAULT-VALUE}.")
  Dtype dtype;

  /** Writes the model folder {@code tandem make-model} writes (the test fixture makes its tiny model so). */
  public static void write(Path dir, ModelPreset preset, long seed, SafetensorsDtype dtype)
      throws IOException {
    FamilyConventions.LLAMA.write(dir, preset, seed, dtype);
  }

  @Override
  public Integer call() throws Exception {
    long t0 = System.nanoTime();
    family.conventions.write(dir, preset.preset, seed, dtype.dtype);
    System.out.printf(Locale.ROOT, "wrote %s: %s, preset %s (%,d parameters), %s, seed %d, in %.1f s%n",
        dir, family, preset, family.conventions.parameterCount(preset.preset), dtype, seed,
        (System.nanoTime() - t0) / 1e9);
    return 0;
  }
}
