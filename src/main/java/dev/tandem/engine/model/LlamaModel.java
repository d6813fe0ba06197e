package dev.tandem.engine.model;

import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loaded Llama-family decoder. {@link #forward} is batch-invariant: a token's K/V rows and
 * logits are bit-identical whatever else is in the batch and however its prompt was chunked.
 * Thread-safe for one caller at a time (the engine's step thread); uses its own worker threads.
 *
 * <p>Parallelism: a fixed pool of daemon threads (the calling thread included; their number is the
 * engine's core budget) splits every matrix product into blocks of weight panels by blocks of
 * tokens (a panel is read once per block) and attention into blocks of a sequence's query tokens by
 * KV head. No reduction is ever split: every output element is one chain of operations in a fixed
 * order ({@link Matmul}, {@link Attention}), so neither the thread count, the batch shape, the
 * vector width nor the Vector API's presence changes a bit. RoPE and the KV writes run on the
 * calling thread. A worker descheduled mid-task (a busy shared machine) never holds up a step: the
 * caller reruns its task ({@link WorkerPool}).
 *
 * <p>Only IEEE float +, -, *, /, sqrt and fused multiply-add are used (exp is computed from them,
 * see {@link Kernels#exp}), so engines on different JVMs and machines compute the same bits.
 */
public final class LlamaModel implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LlamaModel.class);

  private final LlamaWeights w;
  private final LlamaConfig c;
  private final Rope rope;
  private final WorkerPool pool;
  private final ForwardPass pass;

  /** The calling (step) thread pins itself to the budget on its first forward. */
  private final ThreadLocal<Boolean> callerPinned = ThreadLocal.withInitial(() -> false);
  private final CoreBudget cores;

  private LlamaModel(LlamaWeights weights, CoreBudget cores) {
    this.w = weights;
    this.c = weights.config;
    this.cores = cores;
    this.rope = new Rope(c.headDim(), c.ropeTheta(), c.ropeScaling(), Math.min(c.maxPositionEmbeddings(), 1 << 16));
    this.pool = new WorkerPool(cores.threads(), "tandem-model", cores::pinCurrentThread);
    this.pass = new ForwardPass(w, rope, pool);
  }

  /** Loads {@code dir} (config.json + *.safetensors); the message of a failure names the file and the problem. */
  public static LlamaModel load(Path dir) throws ModelLoadException {
    return load(dir, Runtime.getRuntime().availableProcessors());
  }

  /** As {@link #load(Path)}, computing on {@code threads} threads (the caller's included). */
  public static LlamaModel load(Path dir, int threads) throws ModelLoadException {
    List<Integer> none = List.of();
    return load(dir, new CoreBudget(Math.max(1, threads), none, false));
  }

  /**
   * As {@link #load(Path)}, computing on the budget's threads (the caller's included), each
   * restricted to its CPUs when the budget is pinned.
   */
  public static LlamaModel load(Path dir, CoreBudget cores) throws ModelLoadException {
    long t0 = System.nanoTime();
    LlamaWeights weights = LlamaWeights.load(dir);
    LOG.info("loaded {} ({} layers, hidden {}, vocab {}, {} MB of {} weights) in {} ms, fingerprint {}; {} kernels",
        dir, weights.config.numLayers(), weights.config.hiddenSize(), weights.config.vocabSize(),
        weights.weightBytes >> 20, weights.dtype, (System.nanoTime() - t0) / 1_000_000, weights.fingerprint,
        Simd.describe());
    return new LlamaModel(weights, cores);
  }

  public LlamaConfig config() {
    return c;
  }

  /** Hex SHA-256 over the config and weights: equal fingerprints mean interchangeable KV. */
  public String fingerprint() {
    return w.fingerprint;
  }

  /** Bytes of weights one decode step reads (all matrices and norms in their stored dtype; a tied lm_head once). */
  public long weightBytes() {
    return w.weightBytes;
  }

  /** {@code vector 512-bit} or {@code scalar}: which kernels this JVM runs. */
  public static String kernels() {
    return Simd.describe();
  }

  /**
   * Runs one step: writes the K/V of every chunk token into its slot, and returns, in chunk order,
   * the logits (length vocabSize) of each chunk that wants them (null entries for the others).
   */
  public float[][] forward(List<ForwardChunk> chunks, KvStore kv) {
    validate(chunks, kv);
    if (cores.pinned() && !callerPinned.get()) {
      cores.pinCurrentThread();
      callerPinned.set(true);
    }
    return pass.run(chunks, kv);
  }

  private void validate(List<ForwardChunk> chunks, KvStore kv) {
    if (kv.numLayers() != c.numLayers() || kv.kvDim() != c.kvDim()) {
      throw new IllegalArgumentException("KV store has " + kv.numLayers() + " layers of width " + kv.kvDim()
          + " but the model needs " + c.numLayers() + " of width " + c.kvDim());
    }
    for (ForwardChunk ch : chunks) {
      int end = ch.startPos() + ch.tokens().length;
      if (ch.startPos() < 0 || ch.tokens().length == 0 || ch.slots().length < end) {
        throw new IllegalArgumentException("chunk at position " + ch.startPos() + " with " + ch.tokens().length
            + " tokens needs " + end + " slots, has " + ch.slots().length);
      }
      for (int t : ch.tokens()) {
        if (t < 0 || t >= c.vocabSize()) {
          throw new IllegalArgumentException("token id " + t + " is outside the vocabulary [0, " + c.vocabSize() + ")");
        }
      }
      for (int p = 0; p < end; p++) {
        int s = ch.slots()[p];
        if (s < 0 || s >= kv.numSlots()) {
          throw new IllegalArgumentException("slot " + s + " of position " + p + " is outside [0, " + kv.numSlots() + ")");
        }
      }
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
