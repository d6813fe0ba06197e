package dev.tandem.engine.sim;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a simulated engine pretends to be: an accelerator (one or {@code tp} GPUs), a model shape
 * and precision, how close the serving stack gets to the roofline, and the serving limits. Shipped
 * profiles live in the jar under {@code dev/tandem/engine/sim/profiles/<gpu>-<model>.json}; any
 * file of the same form works. Every profile names its sources and the published throughput
 * figures it is checked against ({@link Check}).
 */
public record SimProfile(String name, Gpu gpu, Model model, Efficiency efficiency,
    Serving serving, List<String> sources, List<Check> checks) {

  static final String RESOURCE_DIR = "/dev/tandem/engine/sim/profiles/";
  /** The profiles shipped in the jar. */
  public static final List<String> SHIPPED = List.of("h100-llama3-8b", "h100-llama3-70b-tp4",
      "a100-llama2-13b");
  public static final String DEFAULT = "h100-llama3-8b";

  /**
   * @param count tensor-parallel degree: one engine spans this many GPUs
   * @param peakTflops dense tensor-core peak of one GPU at the model's precision
   * @param hbmGbPerS memory bandwidth of one GPU, GB/s
   * @param kvLinkGbPerS bandwidth a KV transfer to another engine gets, GB/s
   */
  public record Gpu(String name, int count, double peakTflops, double hbmGbPerS, double memoryGib,
      double kvLinkGbPerS) {}

  /** A Llama-family shape; {@code weightBytes}/{@code kvBytes} per element (2 = bf16, 1 = fp8). */
  public record Model(String name, int layers, int hidden, int heads, int kvHeads, int headDim,
      int intermediate, int vocab, boolean tiedEmbeddings, int context, double weightBytes,
      double kvBytes) {

    /** Parameters of the transformer blocks (attention and MLP projections). */
    public long blockParams() {
      long q = (long) heads * headDim;
      long kv = (long) kvHeads * headDim;
      long perLayer = (long) hidden * (q + 2 * kv) + q * hidden + 3L * hidden * intermediate;
      return perLayer * layers;
    }

    public long embeddingParams() {
      return (long) vocab * hidden;
    }

    public long totalParams() {
      return blockParams() + embeddingParams() * (tiedEmbeddings ? 1 : 2);
    }

    /** K and V of one token over all layers. */
    public double kvBytesPerToken() {
      return 2.0 * layers * kvHeads * headDim * kvBytes;
    }
  }

  /**
   * @param compute share of peak FLOPs a step reaches (MFU)
   * @param bandwidth share of peak HBM bandwidth a memory-bound step reaches
   * @param stepOverheadMs fixed cost of every step (scheduling, kernel launches, sampling)
   * @param tpSyncMs extra per step for tensor-parallel all-reduces (0 for one GPU)
   */
  public record Efficiency(double compute, double bandwidth, double stepOverheadMs,
      double tpSyncMs) {}

  /** Defaults of the engine the profile imitates; {@code --overrides} still win. */
  public record Serving(double gpuMemoryUtilization, int maxNumSequence, int prefillChunk) {}

  /**
   * A published figure: {@code requests} prompts of {@code isl} tokens answered with {@code osl}
   * tokens each, at most {@code batch} at once, reached {@code outputTokPerS} (or, for a batch-1
   * first-token latency, {@code ttftMs}).
   */
  public record Check(String what, int isl, int osl, int batch, int requests, double outputTokPerS,
      double ttftMs, String source) {}

  /** A shipped profile by name, or a JSON file by path. */
  public static SimProfile load(String nameOrFile) throws IOException {
    InputStream in = SimProfile.class.getResourceAsStream(RESOURCE_DIR + nameOrFile + ".json");
    if (in != null) {
      try (in) {
        return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), nameOrFile);
      }
    }
    Path file = Path.of(nameOrFile);
    if (!Files.isRegularFile(file)) {
      throw new IOException("no simulation profile '" + nameOrFile + "': neither a shipped one "
          + SHIPPED + " nor a file");
    }
    return parse(Files.readString(file), file.toString());
  }

  /** Parses and validates the JSON form; IllegalArgumentException names the bad field. */
  public static SimProfile parse(String json, String source) {
    JsonObject o;
    try {
      o = new JsonObject(json);
    } catch (DecodeException e) {
      throw new IllegalArgumentException(source + ": not JSON: " + e.getMessage());
    }
    try {
      JsonObject g = o.getJsonObject("gpu");
      JsonObject m = o.getJsonObject("model");
      JsonObject e = o.getJsonObject("efficiency");
      JsonObject s = o.getJsonObject("serving");
      Gpu gpu = new Gpu(g.getString("name"), g.getInteger("count", 1), pos(g, "peak_tflops"),
          pos(g, "hbm_gb_per_s"), pos(g, "memory_gib"), pos(g, "kv_link_gb_per_s"));
      Model model = new Model(m.getString("name"), posInt(m, "layers"), posInt(m, "hidden"),
          posInt(m, "heads"), posInt(m, "kv_heads"), posInt(m, "head_dim"),
          posInt(m, "intermediate"), posInt(m, "vocab"), m.getBoolean("tied_embeddings", false),
          posInt(m, "context"), pos(m, "weight_bytes"), pos(m, "kv_bytes"));
      Efficiency eff = new Efficiency(fraction(e, "compute"), fraction(e, "bandwidth"),
          e.getDouble("step_overhead_ms", 0.0), e.getDouble("tp_sync_ms", 0.0));
      Serving serving = new Serving(fraction(s, "gpu_memory_utilization"),
          posInt(s, "max_num_sequence"), posInt(s, "prefill_chunk"));
      List<String> sources = new ArrayList<>();
      o.getJsonArray("sources", new JsonArray()).forEach(x -> sources.add(String.valueOf(x)));
      List<Check> checks = new ArrayList<>();
      for (Object x : o.getJsonArray("checks", new JsonArray())) {
        JsonObject c = (JsonObject) x;
        checks.add(new Check(c.getString("what"), posInt(c, "isl"), posInt(c, "osl"),
            posInt(c, "batch"), c.getInteger("requests", c.getInteger("batch")),
            c.getDouble("output_tok_per_s", 0.0), c.getDouble("ttft_ms", 0.0),
            c.getString("source")));
      }
      if (gpu.count() < 1 || model.heads() % model.kvHeads() != 0) {
        throw new IllegalArgumentException("gpu.count must be >= 1 and heads a multiple of kv_heads");
      }
      return new SimProfile(o.getString("name", source), gpu, model, eff, serving,
          List.copyOf(sources), List.copyOf(checks));
    } catch (NullPointerException | ClassCastException e) {
      throw new IllegalArgumentException(source + ": missing or mistyped field (" + e.getMessage()
          + "); see the shipped profiles for the form");
    }
  }

  /** Bytes of weights on each GPU (tensor parallelism splits them evenly). */
  public double weightBytesPerGpu() {
    return model.totalParams() * model.weightBytes() / gpu.count();
  }

  private static double pos(JsonObject o, String key) {
    Number n = o.getNumber(key);
    if (n == null || !(n.doubleValue() > 0)) {
      throw new IllegalArgumentException("'" + key + "' must be a positive number, got " + n);
    }
    return n.doubleValue();
  }

  private static int posInt(JsonObject o, String key) {
    double v = pos(o, key);
    if (v != Math.rint(v)) {
      throw new IllegalArgumentException("'" + key + "' must be a whole number, got " + v);
    }
    return (int) v;
  }

  private static double fraction(JsonObject o, String key) {
    double v = pos(o, key);
    if (v > 1) {
      throw new IllegalArgumentException("'" + key + "' must be in (0, 1], got " + v);
    }
    return v;
  }
}
