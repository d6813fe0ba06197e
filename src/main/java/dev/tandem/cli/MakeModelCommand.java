package dev.tandem.cli;

import dev.tandem.engine.model.LlamaConfig;
import dev.tandem.engine.model.ModelPreset;
import dev.tandem.engine.model.RandomModelWriter;
import dev.tandem.engine.model.SafetensorsDtype;
import dev.tandem.tokenizer.TokenizerFilesWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tandem make-model}: writes a seeded random Llama model folder in Hugging Face layout. */
@Command(name = "make-model", mixinStandardHelpOptions = true,
    description = "Write a seeded random Llama model folder (HF layout): config.json, model.safetensors, "
        + "tokenizer.json, tokenizer_config.json, generation_config.json. Same seed, same bytes.")
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

  @Parameters(index = "0", paramLabel = "DIR", description = "Folder to write (created if missing).")
  Path dir;

  @Option(names = "--preset", defaultValue = "tiny",
      description = "tiny (~1M parameters, tests) or small (SmolLM2-135M shape, benchmarks). Default: ${DEFAULT-VALUE}.")
  Preset preset;

  @Option(names = "--seed", defaultValue = "0", description = "Random seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(names = "--dtype", defaultValue = "f32", description = "Weight dtype: f32 or bf16. Default: ${DEFAULT-VALUE}.")
  Dtype dtype;

  /** Writes the model folder {@code tandem make-model} writes (the test fixture makes its tiny model so). */
  public static void write(Path dir, ModelPreset preset, long seed, SafetensorsDtype dtype)
      throws IOException {
    LlamaConfig c = preset.config();
    RandomModelWriter.write(dir, c, seed, dtype);
    TokenizerFilesWriter.write(dir, c.vocabSize(), c.maxPositionEmbeddings(), seed);
  }

  @Override
  public Integer call() throws Exception {
    long t0 = System.nanoTime();
    write(dir, preset.preset, seed, dtype.dtype);
    System.out.printf(Locale.ROOT, "wrote %s: preset %s (%,d parameters), %s, seed %d, in %.1f s%n",
        dir, preset, preset.preset.parameterCount(), dtype, seed, (System.nanoTime() - t0) / 1e9);
    return 0;
  }
}
