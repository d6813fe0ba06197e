package dev.tandem.bench.model;

import dev.tandem.engine.model.ArrayKvStore;
import dev.tandem.engine.model.ForwardChunk;
import dev.tandem.engine.model.LlamaConfig;
import dev.tandem.engine.model.LlamaModel;
import dev.tandem.engine.model.ModelPreset;
import dev.tandem.engine.model.RandomModelWriter;
import dev.tandem.engine.model.SafetensorsDtype;
import dev.tandem.tokenizer.TokenizerFilesWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Prefill and decode tokens/s of the builtin CPU model at batch 1, 8 and 32, beside this machine's
 * limits measured in the same run: peak FMA throughput ({@link FmaPeakBench}) and streaming read
 * bandwidth ({@link StreamingReadBench}). Prefill is also given as a fraction of the FMA peak,
 * decode at batch 1 as a fraction of the bandwidth bound (weight bytes actually read per step).
 *
 * <p>Usage: {@code ModelThroughputBench [MODELS_DIR] [--threads N] [--presets tiny,small]
 * [--dtypes f32,bf16]}; model folders missing under MODELS_DIR (default ./models) are made with
 * seed 0 ({@code tiny}, {@code small}, {@code small-bf16}).
 */
public final class ModelThroughputBench {
  private static final int[] BATCHES = {1, 8, 32};
  /** Each measurement is repeated and the best kept: the machine is shared, the best run is the least disturbed. */
  private static final int ROUNDS = 2;
  private static final int BOUND_ROUNDS = 3;

  /** Per batch size: prompt tokens per sequence and decode steps (keeps the run short). */
  private record Plan(ModelPreset preset, SafetensorsDtype dtype, int[] promptLen, int[] decodeSteps) {}

  private ModelThroughputBench() {}

  public static void main(String[] args) throws Exception {
    Path models = Path.of("models");
    int threads = Runtime.getRuntime().availableProcessors();
    List<String> presets = List.of("tiny", "small");
    List<String> dtypes = List.of("f32", "bf16");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--presets" -> presets = List.of(args[++i].split(","));
        case "--dtypes" -> dtypes = List.of(args[++i].split(","));
        default -> models = Path.of(args[i]);
      }
    }
    List<Plan> plans = new ArrayList<>();
    if (presets.contains("tiny")) {
      plans.add(new Plan(ModelPreset.TINY, SafetensorsDtype.F32, new int[] {128, 128, 128}, new int[] {256, 128, 64}));
    }
    for (String d : presets.contains("small") ? dtypes : List.<String>of()) {
      SafetensorsDtype dtype = SafetensorsDtype.valueOf(d.toUpperCase(Locale.ROOT));
      plans.add(new Plan(ModelPreset.SMALL, dtype, new int[] {128, 16, 8}, new int[] {24, 8, 6}));
    }
    double loadBefore = loadAverage();
    System.out.printf(Locale.ROOT, "threads: %d; kernels: %s; each figure is the best of %d runs%n", threads,
        kernels(), ROUNDS);
    double fma1 = FmaPeakBench.measure(1, 3);
    double fmaN = FmaPeakBench.measure(threads, 3);
    System.out.printf(Locale.ROOT, "peak FMA (%d-float vectors): %.1f GFLOP/s on 1 thread, %.1f GFLOP/s on %d threads%n%n",
        FmaPeakBench.lanes(), fma1, fmaN, threads);
    System.out.println("| model | dtype | batch | prompt tokens | prefill tok/s | prefill GFLOP/s | of FMA peak | decode tok/s |");
    System.out.println("|-------|-------|------:|--------------:|--------------:|----------------:|------------:|-------------:|");
    List<String> boundLines = new ArrayList<>();
    for (Plan plan : plans) {
      Path dir = ensureModel(models, plan.preset(), plan.dtype());
      try (LlamaModel model = LlamaModel.load(dir, threads)) {
        warmUp(model);
        for (int b = 0; b < BATCHES.length; b++) {
          double[] best = {0, 0};
          for (int r = 0; r < ROUNDS; r++) {
            double[] m = run(model, BATCHES[b], plan.promptLen()[b], plan.decodeSteps()[b]);
            best[0] = Math.max(best[0], m[0]);
            best[1] = Math.max(best[1], m[1]);
          }
          double gflops = best[0] * prefillFlopsPerToken(model.config(), plan.promptLen()[b]) / 1e9;
          System.out.printf(Locale.ROOT, "| %-5s | %-5s | %5d | %13d | %13.1f | %15.1f | %10.0f%% | %12.1f |%n",
              plan.preset().id(), plan.dtype().name().toLowerCase(Locale.ROOT), BATCHES[b], plan.promptLen()[b],
              best[0], gflops, 100 * gflops / fmaN, best[1]);
        }
        if (plan.preset() == ModelPreset.SMALL) {
          boundLines.add(decodeVersusBandwidth(model, threads, plan.dtype()));
        }
      }
    }
    System.out.println();
    System.out.printf(Locale.ROOT, "system load average (1 min): %.1f at start, %.1f at end%n", loadBefore, loadAverage());
    boundLines.forEach(System.out::println);
  }

  /**
   * Decode at batch 1 beside the bandwidth bound, measured alternately in the same process so both
   * see the same machine conditions; the best of each is kept.
   */
  private static String decodeVersusBandwidth(LlamaModel model, int threads, SafetensorsDtype dtype)
      throws InterruptedException {
    long bytes = model.weightBytes();
    StreamingReadBench stream = new StreamingReadBench(bytes);
    double decode = 0;
    double bw1 = 0;
    double bwN = 0;
    for (int r = 0; r < BOUND_ROUNDS; r++) {
      bw1 = Math.max(bw1, stream.measure(1, 1));
      bwN = Math.max(bwN, stream.measure(threads, 1));
      decode = Math.max(decode, run(model, 1, 8, 24)[1]);
    }
    double bound = Math.max(bw1, bwN) / bytes;
    double perWeight = (double) bytes / plan(model).parameterCount();
    return String.format(Locale.ROOT, "small %s: weights read per decode step %.1f MB (%.1f bytes per weight)%n"
        + "  streaming read (best of %d): %.2f GB/s on 1 thread, %.2f GB/s on %d threads%n"
        + "  decode batch 1: %.2f tok/s; bandwidth bound %.2f tok/s; ratio %.2f",
        dtype.name().toLowerCase(Locale.ROOT), bytes / 1e6, perWeight, BOUND_ROUNDS, bw1 / 1e9,
        bwN / 1e9, threads, decode, bound, decode / bound);
  }

  /**
   * Floating-point operations per prompt token of a prefill of {@code promptLen} tokens: the
   * projections (2 per weight), causal attention (scores and weighted values, 2 x 2 per head
   * element and visible position) and the lm_head of the prompt's last token, spread over it.
   */
  static double prefillFlopsPerToken(LlamaConfig c, int promptLen) {
    double h = c.hiddenSize();
    double perLayer = h * (c.qDim() + 2.0 * c.kvDim()) + (double) c.qDim() * h + 3 * h * c.intermediateSize();
    double matmul = 2 * c.numLayers() * perLayer;
    double attention = 4.0 * c.numLayers() * c.numHeads() * c.headDim() * (promptLen + 1) / 2.0;
    double lmHead = 2.0 * c.vocabSize() * h / promptLen;
    return matmul + attention + lmHead;
  }

  private static ModelPreset plan(LlamaModel model) {
    return model.config().equals(ModelPreset.TINY.config()) ? ModelPreset.TINY : ModelPreset.SMALL;
  }

  /** The engine's kernels, asked by name so that this benchmark also runs against builds without them. */
  private static String kernels() {
    try {
      return String.valueOf(LlamaModel.class.getMethod("kernels").invoke(null));
    } catch (ReflectiveOperationException e) {
      return "scalar (a build before the vector kernels)";
    }
  }

  private static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static Path ensureModel(Path models, ModelPreset preset, SafetensorsDtype dtype) throws Exception {
    Path dir = models.resolve(preset.id() + (dtype == SafetensorsDtype.F32 ? "" : "-" + dtype.name().toLowerCase(Locale.ROOT)));
    if (!Files.isRegularFile(dir.resolve("model.safetensors"))) {
      System.err.println("making " + dir);
      RandomModelWriter.write(dir, preset.config(), 0, dtype);
      TokenizerFilesWriter.write(dir, preset.config().vocabSize(), preset.config().maxPositionEmbeddings(), 0);
    }
    return dir;
  }

  private static void warmUp(LlamaModel model) {
    for (int i = 0; i < 3; i++) {
      run(model, 2, 16, 8);
      run(model, 1, 64, 8);
    }
  }

  /** Prefills {@code batch} prompts in one step, then decodes {@code steps} steps: {prefill, decode} tokens/s. */
  private static double[] run(LlamaModel model, int batch, int promptLen, int steps) {
    int len = promptLen + steps;
    ArrayKvStore kv = new ArrayKvStore(model.config(), batch * len);
    int vocab = model.config().vocabSize();
    int[][] slots = new int[batch][len];
    List<ForwardChunk> prefill = new ArrayList<>();
    SplittableRandom rng = new SplittableRandom(batch);
    for (int s = 0; s < batch; s++) {
      for (int p = 0; p < len; p++) {
        slots[s][p] = s * len + p;
      }
      prefill.add(new ForwardChunk(rng.ints(promptLen, 0, vocab).toArray(), 0, slots[s], true));
    }
    long t0 = System.nanoTime();
    float[][] logits = model.forward(prefill, kv);
    long t1 = System.nanoTime();
    for (int step = 0; step < steps; step++) {
      List<ForwardChunk> chunks = new ArrayList<>(batch);
      for (int s = 0; s < batch; s++) {
        chunks.add(new ForwardChunk(new int[] {argmax(logits[s])}, promptLen + step, slots[s], true));
      }
      logits = model.forward(chunks, kv);
    }
    long t2 = System.nanoTime();
    return new double[] {batch * promptLen / ((t1 - t0) / 1e9), batch * steps / ((t2 - t1) / 1e9)};
  }

  private static int argmax(float[] v) {
    int best = 0;
    for (int i = 1; i < v.length; i++) {
      if (v[i] > v[best]) {
        best = i;
      }
    }
    return best;
  }
}
