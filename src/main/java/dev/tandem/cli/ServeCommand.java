package dev.tandem.cli;

import dev.tandem.api.FleetSecret;
import dev.tandem.chat.ChatSetup;
import dev.tandem.engine.model.CoreBudget;
import dev.tandem.engine.model.GenerationConfig;
import dev.tandem.engine.model.LlamaModel;
import dev.tandem.engine.model.ModelLoadException;
import dev.tandem.engine.sched.Engine;
import dev.tandem.engine.sched.EngineOptions;
import dev.tandem.engine.sched.ForwardModel;
import dev.tandem.engine.server.EngineOverrides;
import dev.tandem.engine.server.EngineServerConfig;
import dev.tandem.engine.server.EngineServerVerticle;
import dev.tandem.engine.server.EngineSizing;
import dev.tandem.engine.server.ParentWatch;
import dev.tandem.tokenizer.DjlTokenizer;
import dev.tandem.tokenizer.TextTokenizer;
import dev.tandem.kv.KvWorld;
import dev.tandem.world.EngineWorld;
import dev.tandem.world.WorldException;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tandem serve MODEL}: the builtin CPU engine server, started with the flags PopenServer
 * gives {@code mlc_llm serve}. Usage errors exit with code 2 (as argparse does), start-up failures
 * (model, world) with 1. With {@code TANDEM_PARENT_PID} set the engine exits when that process is
 * gone, so an engine never outlives its router, even one killed with SIGKILL.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "Run the builtin CPU engine server (mlc_llm serve compatible).")
public final class ServeCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);
  static final String PARENT_PID_ENV = "TANDEM_PARENT_PID";

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "MODEL", description = "Hugging Face Llama model folder.")
  String model;

  @Option(names = "--model-lib", description = "Accepted for mlc_llm compatibility; unused.")
  String modelLib;

  @Option(names = "--device", defaultValue = "auto",
      description = "cpu, cpu:N or auto. With --overrides tensor_parallel_shards=G the engine computes"
          + " on cores N .. N+G-1 (wrapping around), pinned; without it, on every core. sim or sim:N"
          + " runs a simulated GPU engine (see --sim-profile).")
  String device;

  @Option(names = "--enable-debug", description = "usage.extra and /debug routes (may repeat).")
  boolean[] enableDebug;

  @Option(names = "--mode", defaultValue = "local", description = "local, interactive or server.")
  String mode;

  @Option(names = "--additional-models", arity = "1..*", description = "Not supported.")
  List<String> additionalModels;

  @Option(names = "--speculative-mode", defaultValue = "disable", description = "Only disable.")
  String speculativeMode;

  @Option(names = "--prefix-cache-mode", defaultValue = "radix", description = "radix or disable.")
  String prefixCacheMode;

  @Option(names = "--prefill-mode", defaultValue = "hybrid", description = "hybrid or chunked (both chunk prompts).")
  String prefillMode;

  @Option(names = "--overrides", description = "k=v;k=v with MLC's EngineConfigOverride keys.")
  String overrides;

  @Option(names = "--enable-tracing", description = "Accepted; event traces are not recorded.")
  boolean enableTracing;

  @Option(names = "--host", defaultValue = "127.0.0.1")
  String host;

  @Option(names = "--port", defaultValue = "8000")
  int port;

  @Option(names = "--parked-ttl", defaultValue = "60",
      description = "Seconds a prep_recv reservation waits for start_generate (Tandem extension).")
  long parkedTtlSeconds;

  @Option(names = "--client-stall-timeout", defaultValue = "120",
      description = "Seconds a streaming client may read nothing, its request held, before its"
          + " stream is cut and the request freed (Tandem extension).")
  long clientStallTimeoutSeconds;

  @Option(names = "--chat-template", paramLabel = "FILE",
      description = "Jinja chat template (or a JSON file with chat_template) for"
          + " /v1/chat/completions, instead of the model's own.")
  String chatTemplate;

  @Option(names = "--tool-call-parser", defaultValue = "none",
      description = "none or hermes: <tool_call>{json}</tool_call> in a chat answer that was"
          + " offered tools becomes tool_calls.")
  String toolCallParser;

  @Option(names = "--world-join-timeout", defaultValue = "180",
      description = "Seconds to wait for every PE of the KV world to join (Tandem extension).")
  long worldJoinTimeoutSeconds;

  @Option(names = "--sim-profile", paramLabel = "NAME|FILE",
      description = "With --device sim: the simulated GPU and model (shipped: h100-llama3-8b,"
          + " h100-llama3-70b-tp4, a100-llama2-13b; or a JSON file). Default: h100-llama3-8b.")
  String simProfile;

  /** The fleet's secret from the environment; none: a warning when others can reach the port. */
  private String fleetSecret() {
    String secret = System.getenv(FleetSecret.ENV);
    if (secret != null && !secret.isBlank()) {
      LOG.info("every call must carry the fleet's secret ({})", FleetSecret.HEADER);
      return secret;
    }
    if (FleetSecret.beyondLoopback(host)) {
      LOG.warn("listening on {} without a fleet secret ({} unset): anyone who reaches this port"
          + " may call it, MicroServing included; keep it on a private network", host,
          FleetSecret.ENV);
    }
    return null;
  }

  private static double orOne(Double value) {
    return value == null ? 1.0 : value;
  }

  @Override
  public Integer call() throws Exception {
    try {
      ParentWatch.startFromEnv(System.getenv(PARENT_PID_ENV));
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
    EngineOverrides engineOverrides = validateFlags();
    boolean debug = enableDebug != null && enableDebug.length > 0;
    boolean sim = device.startsWith("sim");
    // A simulated engine sleeps instead of computing: it takes no core budget and is not pinned.
    CoreBudget cores = sim ? CoreBudget.all() : coreBudget(engineOverrides); // pinned before any other thread starts

    // Vert.x (Netty, class loading) starts on its own thread while the model and tokenizer load,
    // so that part of an engine's start overlaps instead of adding up where a core is free.
    CompletableFuture<Vertx> vertxStarting = CompletableFuture.supplyAsync(
        () -> sim ? Vertx.vertx(SimServe.vertxOptions()) : Vertx.vertx(),
        runnable -> new Thread(runnable, "tandem-serve-vertx-start").start());
    Path dir = Path.of(model);
    // The chat template (Jinjava's first use costs a few hundred ms) loads beside the model too.
    CompletableFuture<ChatSetup> chatLoading = CompletableFuture.supplyAsync(() -> {
      try {
        return ChatSetup.load(chatTemplate == null ? null : Path.of(chatTemplate), dir, toolCallParser);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }, runnable -> new Thread(runnable, "tandem-serve-chat-template").start());
    long t0 = System.nanoTime();
    ServedModel served;
    ChatSetup chat;
    try {
      served = sim ? SimServe.load(dir, simProfile, mode, engineOverrides,
              prefixCacheMode.equals("radix"), Duration.ofSeconds(parkedTtlSeconds))
          : loadBuiltin(dir, engineOverrides, cores);
    } catch (ModelLoadException | IOException e) {
      System.err.println("tandem serve: cannot load model " + dir + ": " + e.getMessage());
      vertxStarting.thenAccept(Vertx::close);
      return 1;
    } catch (IllegalArgumentException e) {
      vertxStarting.thenAccept(Vertx::close);
      throw new ParameterException(spec.commandLine(), "tandem serve: " + e.getMessage());
    }
    try {
      chat = chatLoading.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause() instanceof UncheckedIOException io ? io.getCause() : e.getCause();
      System.err.println("tandem serve: cannot load the chat template"
          + (chatTemplate != null ? " " + chatTemplate : "") + ": " + cause.getMessage());
      vertxStarting.thenAccept(Vertx::close);
      return 1;
    }
    if (chat.template() == null) {
      LOG.info("no /v1/chat/completions: {}", chat.missing());
    }
    TextTokenizer tokenizer = served.tokenizer();
    EngineOptions options = served.options();
    GenerationConfig generation = served.generation();
    Engine engine = new Engine(served.model(), tokenizer, options, generation);
    LOG.info("stop token ids {}; sampling defaults for requests that set none: temperature {},"
        + " top_p {}{}", java.util.Arrays.toString(generation.stopTokenIds(served.model().config())),
        orOne(generation.temperature()), orOne(generation.topP()),
        generation.topK() == null ? "" : ", top_k " + generation.topK());
    engine.start();
    LOG.info("{} loaded in {} ms: vocab {}, context {}", served.description(),
        (System.nanoTime() - t0) / 1_000_000, served.model().config().vocabSize(),
        options.maxSequenceLength());

    EngineWorld world = null;
    String worldConfig = System.getenv(KvWorld.ENV);
    if (worldConfig != null && !worldConfig.isBlank()) {
      try {
        world = EngineWorld.join(worldConfig, numPes(engineOverrides), host, engine,
            served.model().fingerprint(),
            Duration.ofSeconds(worldJoinTimeoutSeconds));
      } catch (WorldException e) {
        System.err.println("tandem serve: cannot join the KV world: " + e.getMessage());
        engine.close();
        vertxStarting.thenAccept(Vertx::close);
        return 1;
      }
      LOG.info("joined the KV world as PEs {}..{} of {}", world.peStart(),
          world.peStart() + world.numPes() - 1, world.npes());
    } else {
      LOG.info("{} is not set: serving /v1/completions only (no MicroServing)", KvWorld.ENV);
    }

    Vertx vertx = vertxStarting.join();
    KvWorld kvWorld = world == null ? null : served.worldView().apply(world);
    EngineServerVerticle server = new EngineServerVerticle(engine, tokenizer, kvWorld,
        new EngineServerConfig(host, port, model, debug,
            Duration.ofSeconds(clientStallTimeoutSeconds), cores, fleetSecret()), chat);
    try {
      vertx.deployVerticle(server).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      System.err.println("tandem serve: cannot listen on " + host + ":" + port + ": " + cause.getMessage());
      vertx.close();
      engine.close();
      if (world != null) {
        world.close();
      }
      return 1;
    }
    KvWorld joined = kvWorld;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      vertx.close();
      engine.close();
      if (joined != null) {
        joined.close();
      }
    }, "tandem-serve-shutdown"));
    LOG.info("tandem engine ready on http://{}:{} (model {}, {} KV pages, max {} sequences)", host,
        server.actualPort(), model, options.numKvPages(), options.maxNumSequence());
    new CountDownLatch(1).await();
    return 0;
  }

  /** The real model from the folder, sized by the heap left after loading it. */
  private ServedModel loadBuiltin(Path dir, EngineOverrides engineOverrides, CoreBudget cores)
      throws ModelLoadException, IOException {
    LlamaModel llama = LlamaModel.load(dir, cores);
    TextTokenizer tokenizer = DjlTokenizer.load(dir);
    Runtime rt = Runtime.getRuntime();
    long freeHeap = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    EngineOptions options;
    try {
      options = EngineSizing.size(llama.config(), mode, engineOverrides,
          prefixCacheMode.equals("radix"), Duration.ofSeconds(parkedTtlSeconds), freeHeap);
    } catch (IllegalArgumentException e) {
      tokenizer.close();
      throw e;
    }
    return new ServedModel(ForwardModel.of(llama), tokenizer, options, GenerationConfig.load(dir),
        w -> w, "model " + dir + " (" + llama.config().family().id() + ", "
            + llama.config().numLayers() + " layers; computing on "
            + cores.describe() + ", " + LlamaModel.kernels() + " kernels)");
  }
  /**
   * The engine's cores: {@code --device cpu:S} and {@code tensor_parallel_shards=G} (as MLC reads
   * them for GPUs: G devices from S) give cores S .. S + G - 1, pinned; without a device count,
   * every core, unpinned (an engine started by hand).
   */
  private CoreBudget coreBudget(EngineOverrides o) {
    Integer shards = o.tensorParallelShards();
    if (shards == null) {
      return CoreBudget.all();
    }
    if (shards < 1) {
      throw usage("--overrides tensor_parallel_shards=" + shards + ": must be at least 1 (the engine's cores)");
    }
    int first = device.startsWith("cpu:") ? Integer.parseInt(device.substring(4)) : 0;
    CoreBudget cores = CoreBudget.devices(first, shards).pin();
    if (!cores.pinned()) {
      LOG.info("cannot pin threads on this OS: running {} model threads unpinned", cores.threads());
    }
    return cores;
  }

  /**
   * The PEs this engine holds in the world: {@code tensor_parallel_shards} (the router passes an
   * endpoint's device count so), as an MLC engine's tensor-parallel workers each hold one.
   */
  static int numPes(EngineOverrides overrides) {
    Integer shards = overrides.tensorParallelShards();
    return shards == null ? 1 : shards;
  }

  /** Checks what picocli cannot; a problem is a usage error (exit 2). */
  private EngineOverrides validateFlags() {
    if (modelLib != null) {
      LOG.info("--model-lib {} is unused: the builtin engine runs the model folder directly", modelLib);
    }
    if (!device.equals("auto") && !device.matches("(cpu|sim)(:\\d+)?")) {
      throw usage("--device " + device + ": the builtin engine runs on the CPU (cpu, cpu:N or auto)"
          + " or simulates a GPU (sim, sim:N)");
    }
    if (simProfile != null && !device.startsWith("sim")) {
      throw usage("--sim-profile needs --device sim or sim:N");
    }
    if (!List.of("local", "interactive", "server").contains(mode)) {
      throw usage("--mode " + mode + ": must be local, interactive or server");
    }
    if (additionalModels != null && !additionalModels.isEmpty()) {
      throw usage("--additional-models is not supported by the builtin engine");
    }
    if (!speculativeMode.equals("disable")) {
      throw usage("--speculative-mode " + speculativeMode + ": the builtin engine supports only disable");
    }
    if (!List.of("radix", "disable").contains(prefixCacheMode)) {
      throw usage("--prefix-cache-mode " + prefixCacheMode + ": must be radix or disable");
    }
    if (!List.of("hybrid", "chunked").contains(prefillMode)) {
      throw usage("--prefill-mode " + prefillMode + ": must be hybrid or chunked");
    }
    if (port < 0 || port > 65535) {
      throw usage("--port " + port + ": must be 0..65535");
    }
    if (parkedTtlSeconds <= 0 || worldJoinTimeoutSeconds <= 0 || clientStallTimeoutSeconds <= 0) {
      throw usage("--parked-ttl, --world-join-timeout and --client-stall-timeout must be positive");
    }
    if (enableTracing) {
      LOG.info("--enable-tracing is accepted; the builtin engine records no event trace");
    }
    if (!ChatSetup.TOOL_CALL_PARSERS.contains(toolCallParser)) {
      throw usage("--tool-call-parser " + toolCallParser + ": must be none or hermes");
    }
    if (chatTemplate != null && !Files.isRegularFile(Path.of(chatTemplate))) {
      throw usage("--chat-template " + chatTemplate + " is not a file");
    }
    if (!Files.isDirectory(Path.of(model))) {
      throw usage("MODEL " + model + " is not a directory (the builtin engine loads a local"
          + " Hugging Face folder; make one with: tandem make-model DIR)");
    }
    EngineOverrides parsed;
    try {
      parsed = EngineOverrides.parse(overrides);
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
    if (parsed.tensorParallelShards() != null && parsed.tensorParallelShards() < 1) {
      throw usage("--overrides tensor_parallel_shards=" + parsed.tensorParallelShards()
          + ": must be at least 1");
    }
    return parsed;
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), "tandem serve: " + message);
  }
}
