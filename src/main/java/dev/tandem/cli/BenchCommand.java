package dev.tandem.cli;

import dev.tandem.bench.BenchOptions;
import dev.tandem.bench.BenchReport;
import dev.tandem.bench.BenchRunner;
import dev.tandem.bench.ConsoleReport;
import dev.tandem.bench.LengthDistribution;
import dev.tandem.bench.PromptKind;
import dev.tandem.bench.SharedPrefix;
import dev.tandem.bench.WorkloadClass;
import dev.tandem.bench.WorkloadSpec;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tandem bench}: an OpenAI completions (and chat) load generator. Exit code 0 when every measured
 * request succeeded, 1 when some failed (the report says which kinds), 2 for usage errors.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    subcommands = {dev.tandem.bench.NullEngineCommand.class, dev.tandem.bench.RelayFloorCommand.class,
        dev.tandem.bench.BusLatencyCommand.class},
    description = {"OpenAI completions and chat load generator (closed or open loop, seeded workloads).",
        "Lengths: N | uniform:A-B | lognormal:MEAN,SIGMA.  Exit code 1 if any measured request failed."})
public final class BenchCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  // Checked in options(), not by picocli, so that `tandem bench null-engine` needs no --url.
  @Option(names = "--url", paramLabel = "URL",
      description = "Server base URL (router, engine or proxy), e.g. http://127.0.0.1:8000")
  String url;

  @Option(names = "--model", paramLabel = "NAME", description = "Model name to send (default: first id of GET /v1/models, else none)")
  String model;

  @Option(names = "--concurrency", paramLabel = "C", description = "Closed loop: C requests always in flight")
  int concurrency;

  @Option(names = "--rate", paramLabel = "R", description = "Open loop: Poisson arrivals, R requests/s (seeded)")
  double rate;

  @Option(names = "--requests", paramLabel = "N", description = "Measured requests to send (warm-up not included)")
  long requests;

  @Option(names = "--duration", paramLabel = "SECONDS", description = "Issue measured requests for this long")
  double duration;

  @Option(names = "--warmup", paramLabel = "N|Ns", defaultValue = "0",
      description = "Excluded from the report: the first N requests, or those issued in the first N seconds (e.g. 5s)")
  String warmup;

  @Option(names = "--prompt-len", paramLabel = "LEN", defaultValue = "128",
      description = "Prompt length in tokens (ids) or words (text). Default ${DEFAULT-VALUE}")
  String promptLen;

  @Option(names = "--output-len", paramLabel = "LEN", defaultValue = "64",
      description = "max_tokens per request (exact with ignore_eos). Default ${DEFAULT-VALUE}")
  String outputLen;

  @Option(names = "--mix", paramLabel = "[NAME=]PROMPT/OUTPUT[@WEIGHT]",
      description = "A request class of a mix (repeat for each); replaces --prompt-len/--output-len, "
          + "e.g. --mix long=1024/8@1 --mix short=32/128@1")
  List<String> mix = new ArrayList<>();

  @Option(names = "--shared-prefix", paramLabel = "N:L", description = "N shared prefixes of L tokens (words); each prompt is one of them + its own --prompt-len")
  String sharedPrefix;

  @Option(names = "--multi-turn", paramLabel = "TURNS",
      description = "Requests are turns of conversations: each prompt = the earlier turns + a new"
          + " user message (--prompt-len), answers of --output-len; turn t+1 after turn t ended")
  Integer multiTurn;

  @Option(names = "--think-time", paramLabel = "SECONDS", defaultValue = "0",
      description = "Multi-turn: pause between a turn's end and the next turn. Default ${DEFAULT-VALUE}")
  double thinkTime;

  @Option(names = "--context-limit", paramLabel = "TOKENS", defaultValue = "" + dev.tandem.bench.MultiTurn.DEFAULT_CONTEXT_LIMIT,
      description = "Multi-turn: a conversation ends before a turn that would need more. Default ${DEFAULT-VALUE}")
  int contextLimit;

  @Option(names = "--lengths-from", paramLabel = "TRACE",
      description = "Prompt and output lengths fitted to a public chat trace (lognormal): lmsys-chat-1m")
  String lengthsFrom;

  @Option(names = "--api", defaultValue = "completions", paramLabel = "completions|chat",
      description = "The endpoint: /v1/completions, or /v1/chat/completions with each prompt as"
          + " messages (a shared prefix as the system message; multi-turn: the earlier turns as"
          + " user and assistant messages). chat takes text prompts")
  String api;

  @Option(names = "--prompt-kind", defaultValue = "text", paramLabel = "text|ids",
      description = "Prompts as text or token ids (ids: exact lengths; need --vocab-size or --model-dir)")
  String promptKind;

  @Option(names = "--vocab-size", paramLabel = "V", description = "Token ids are drawn below V")
  Integer vocabSize;

  @Option(names = "--model-dir", paramLabel = "DIR", description = "Model folder whose config.json gives vocab_size")
  Path modelDir;

  @Option(names = "--first-token-id", defaultValue = "0", paramLabel = "ID",
      description = "Token ids are drawn from ID upwards (to skip special tokens). Default ${DEFAULT-VALUE}")
  int firstTokenId;

  @Option(names = "--seed", defaultValue = "0", paramLabel = "N", description = "Workload and arrival seed. Default ${DEFAULT-VALUE}")
  long seed;

  @Option(names = "--no-stream", negatable = false, description = "Non-streaming requests (no TTFT/TPOT)")
  boolean noStream;

  @Option(names = "--no-ignore-eos", negatable = false,
      description = "Do not send debug_config.ignore_eos (answers may end before max_tokens)")
  boolean noIgnoreEos;

  @Option(names = "--slo-ttft-ms", paramLabel = "MS", description = "Goodput limit on time to first token")
  Double sloTtft;

  @Option(names = "--slo-tpot-ms", paramLabel = "MS", description = "Goodput limit on time per output token")
  Double sloTpot;

  @Option(names = "--json", paramLabel = "FILE", description = "Also write the report as JSON to FILE")
  Path json;

  @Option(names = "--requests-json", paramLabel = "FILE",
      description = "Also write each measured request (class, TTFT, TPOT, e2e, tokens) as one JSON line to FILE")
  Path requestsJson;

  @Option(names = "--max-connections", defaultValue = "" + BenchOptions.DEFAULT_MAX_CONNECTIONS, paramLabel = "N",
      description = "Connection pool cap (closed loop uses C). Default ${DEFAULT-VALUE}")
  int maxConnections;

  @Option(names = "--timeout", defaultValue = "600", paramLabel = "SECONDS",
      description = "A request that receives nothing for this long fails. Default ${DEFAULT-VALUE}")
  double timeoutSeconds;

  @Option(names = "--quiet", description = "No progress line on stderr")
  boolean quiet;

  @Override
  public Integer call() throws Exception {
    BenchOptions options = options();
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(2));
    try {
      BenchReport report = BenchRunner.run(vertx, options, System.err).toCompletionStage().toCompletableFuture().get();
      spec.commandLine().getOut().print(ConsoleReport.format(report));
      spec.commandLine().getOut().flush();
      if (json != null) {
        Files.writeString(json, report.toJson().encodePrettily() + "\n", StandardCharsets.UTF_8);
      }
      if (requestsJson != null) {
        Files.writeString(requestsJson, report.requestLines(), StandardCharsets.UTF_8);
      }
      return report.overall().errors() == 0 ? 0 : 1;
    } catch (ExecutionException e) {
      System.err.println("tandem bench: " + e.getCause().getMessage());
      return 1;
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get();
    }
  }

  BenchOptions options() {
    try {
      if (url == null) {
        throw new IllegalArgumentException("Missing required option: '--url=URL'");
      }
      List<WorkloadClass> classes = new ArrayList<>();
      if (lengthsFrom != null) {
        if (!mix.isEmpty()) {
          throw new IllegalArgumentException("--lengths-from and --mix exclude each other");
        }
        dev.tandem.bench.TraceLengths.Fit fit = dev.tandem.bench.TraceLengths.get(lengthsFrom);
        classes.add(new WorkloadClass(WorkloadClass.DEFAULT_NAME, fit.prompt(), fit.output(), 1));
      } else if (mix.isEmpty()) {
        classes.add(new WorkloadClass(WorkloadClass.DEFAULT_NAME, LengthDistribution.parse(promptLen),
            LengthDistribution.parse(outputLen), 1));
      } else {
        for (int i = 0; i < mix.size(); i++) {
          classes.add(WorkloadClass.parseMixEntry(mix.get(i), i));
        }
      }
      PromptKind kind = switch (promptKind.toLowerCase(Locale.ROOT)) {
        case "text" -> PromptKind.TEXT;
        case "ids" -> PromptKind.IDS;
        default -> throw new IllegalArgumentException("--prompt-kind must be text or ids, got " + promptKind);
      };
      int vocab = kind == PromptKind.IDS ? vocabSize() : 0;
      WorkloadSpec workload = new WorkloadSpec(classes, kind, vocab, firstTokenId,
          sharedPrefix == null ? null : SharedPrefix.parse(sharedPrefix), seed,
          multiTurn == null ? null : new dev.tandem.bench.MultiTurn(multiTurn, thinkTime, contextLimit));
      String w = warmup.trim().toLowerCase(Locale.ROOT);
      long warmupRequests = w.endsWith("s") ? 0 : Long.parseLong(w);
      double warmupSeconds = w.endsWith("s") ? Double.parseDouble(w.substring(0, w.length() - 1)) : 0;
      return new BenchOptions(url, model, !noStream, !noIgnoreEos, concurrency, rate, requests, duration,
          warmupRequests, warmupSeconds, maxConnections, Math.round(timeoutSeconds * 1000), workload,
          sloTtft == null ? Double.NaN : sloTtft, sloTpot == null ? Double.NaN : sloTpot, !quiet,
          dev.tandem.bench.BenchApi.parse(api));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  private int vocabSize() {
    if (vocabSize != null) {
      return vocabSize;
    }
    if (modelDir == null) {
      throw new IllegalArgumentException("--prompt-kind ids needs --vocab-size V or --model-dir DIR");
    }
    Path config = modelDir.resolve("config.json");
    try {
      Integer v = new JsonObject(Files.readString(config)).getInteger("vocab_size");
      if (v == null) {
        throw new IllegalArgumentException(config + " has no vocab_size; give --vocab-size");
      }
      return v;
    } catch (IOException | RuntimeException e) {
      if (e instanceof IllegalArgumentException iae && iae.getMessage().contains("vocab_size")) {
        throw iae;
      }
      throw new IllegalArgumentException("cannot read vocab_size from " + config + ": " + e.getMessage(), e);
    }
  }
}
