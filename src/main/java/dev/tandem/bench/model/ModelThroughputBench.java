package dev.tandem.bench.model;

import dev.tandem.engine.model.ArrayKvStore;
import dev.tandem.engine.model.ForwardChunk;
import dev.tandem.engine.model.LlamaModel;
import dev.tandem.engine.model.ModelPreset;
import dev.tandem.engine.model.RandomModelWriter;
import dev.tandem.engine.model.SafetensorsDtype;
import dev.tandem.tokenizer.TokenizerFilesWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prefill and decode tokens/s of the builtin CPU model at batch 1, 8 and 32 for the {@code tiny}
 * and {@code small} presets, and decode at batch 1 on {@code small} beside the memory-bandwidth
 * bound (weight bytes / streaming-read bandwidth measured in the same run).
 *
 * <p>Usage: {@code ModelThroughputBench [MODELS_DIR] [--threads N]}; model folders missing under
 * MODELS_DIR (default ./models) are made with seed 0.
 */
public final class ModelThroughputBench {
  private static final int[] BATCHES = {1, 8, 32};
  /** Each measurement is repeated and the best kept: the machine is shared, the best run is the least disturbed. */
  private static final int ROUNDS = 2;
  private static final int BOUND_ROUNDS = 3;

  /** Per preset and batch size: prompt tokens per sequence and decode steps (keeps the run short). */
  private record Plan(ModelPreset preset, int[] promptLen, int[] decodeSteps) {}

  private ModelThroughputBench() {}

  public static void main(String[] args) throws Exception {
    Path models = Path.of("models");
    int threads = Runtime.getRuntime().availableProcessors();
    List<String> presets = List.of("tiny", "small");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--presets" -> presets = List.of(args[++i].split(","));
        default -> models = Path.of(args[i]);
      }
    }
    List<Plan> plans = new ArrayList<>();
    if (presets.contains("tiny")) {
      plans.add(new Plan(ModelPreset.TINY, new int[] {128, 128, 128}, new int[] {256, 128, 64}));
    }
    if (presets.contains("small")) {
      plans.add(new Plan(ModelPreset.SMALL, new int[] {64, 16, 8}, new int[] {24, 8, 4}));
    }
    double loadBefore = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    System.out.println("| model | batch | prompt tokens | prefill tok/s | decode tok/s |");
    System.out.println("|-------|------:|--------------:|--------------:|-------------:|");
    String boundLine = null;
    for (Plan plan : plans) {
      Path dir = ensureModel(models, plan.preset());
      try (LlamaModel model = LlamaModel.load(dir, threads)) {
        warmUp(model);
        for (int b = 0; b < BATCHES.length; b++) {
          double[] best = {0, 0};
          for (int r = 0; r < ROUNDS; r++) {
            double[] m = run(model, BATCHES[b], plan.promptLen()[b], plan.decodeSteps()[b]);
            best[0] = Math.max(best[0], m[0]);
            best[1] = Math.max(best[1], m[1]);
          }
          System.out.printf(Locale.ROOT, "| %-5s | %5d | %13d | %13.1f | %12.1f |%n", plan.preset().id(), BATCHES[b],
              plan.promptLen()[b], best[0], best[1]);
        }
        if (plan.preset() == ModelPreset.SMALL) {
          boundLine = decodeVersusBandwidth(model, threads);
        }
      }
    }
    System.out.println();
    System.out.printf(Locale.ROOT, "threads: %d; each figure is the best of %d runs%n", threads, ROUNDS);
    System.out.printf(Locale.ROOT, "system load average (1 min): %.1f at start, %.1f at end%n", loadBefore,
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    if (boundLine != null) {
      System.out.println(boundLine);
    }
  }

  /**
   * Decode at batch 1 beside the bandwidth bound, measured alternately in the same process so both
   * see the same machine conditions; the best of each is kept.
   */
  private static String decodeVersusBandwidth(LlamaModel model, int threads) throws InterruptedException {
    long bytes = model.weightBytes();
    StreamingReadBench stream = new StreamingReadBench(bytes);
    double decode = 0;
    double bw1 = 0;
    double bwN = 0;
    for (int r = 0; r < BOUND_ROUNDS; r++) {
      bw1 = Math.max(bw1, stream.measure(1, 1));
      bwN = Math.max(bwN, stream.measure(threads, 1));
      decode = Math.max(decode, run(model, 1, 8, 16)[1]);
    }
    double bound = Math.max(bw1, bwN) / bytes;
    return String.format(Locale.ROOT, "small weights read per decode step: %.1f MB (f32)%n"
        + "streaming read (best of %d): %.2f GB/s on 1 thread, %.2f GB/s on %d threads%n"
        + "small decode batch 1: %.2f tok/s; bandwidth bound %.2f tok/s; ratio %.2f",
        bytes / 1e6, BOUND_ROUNDS, bw1 / 1e9, bwN / 1e9, threads, decode, bound, decode / bound);
  }

  private static Path ensureModel(Path models, ModelPreset preset) throws Exception {
    Path dir = models.resolve(preset.id());
    if (!Files.isRegularFile(dir.resolve("model.safetensors"))) {
      System.err.println("making " + dir);
      RandomModelWriter.write(dir, preset.config(), 0, SafetensorsDtype.F32);
      TokenizerFilesWriter.write(dir, preset.config().vocabSize(), preset.config().maxPositionEmbeddings(), 0);
    }
    return dir;
  }

  private static void warmUp(LlamaModel model) {
    for (int i = 0; i < 3; i++) {
      run(model, 2, 16, 8);
    }
  }

  /** Prefills {@code batch} prompts in one step, then decodes {@code steps} steps: {prefill, decode} tokens/s. */
  private static double[] run(LlamaModel model, int batch, int promptLen, int steps) {
    int len = promptLen + steps;
    ArrayKvStore kv = new ArrayKvStore(model.config(), batch * len);
    int vocab = model.config().vocabSize();
    int[][] slots = new int[batch][len];
    List<ForwardChunk> prefill = new ArrayList<>();
    java.util.SplittableRandom rng = new java.util.SplittableRandom(batch);
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
