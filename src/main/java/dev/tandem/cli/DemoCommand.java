package dev.tandem.cli;

import static dev.tandem.config.RouterConfig.ENDPOINT_PORTS;
import static dev.tandem.config.RouterConfig.ENGINE_JVM_OPTS;
import static dev.tandem.config.RouterConfig.LOG_DIR;
import static dev.tandem.config.RouterConfig.MODEL;
import static dev.tandem.config.RouterConfig.STOP_GRACE;
import static dev.tandem.config.RouterOptions.DRAIN_TIMEOUT;
import static dev.tandem.config.RouterOptions.ROUTER_HOST;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import dev.tandem.config.ConfigException;
import dev.tandem.config.ConfigValidator;
import dev.tandem.config.NetworkTransport;
import dev.tandem.config.NetworkTransports;
import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterMode;
import dev.tandem.engine.model.LlamaConfig;
import dev.tandem.engine.model.ModelPreset;
import dev.tandem.engine.model.RandomModelWriter;
import dev.tandem.engine.model.SafetensorsDtype;
import dev.tandem.supervisor.SupervisorVerticle;
import dev.tandem.tokenizer.TokenizerFilesWriter;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tandem demo}: the README's first command. Makes the tiny model if it is missing, starts
 * 1 prefill + 2 decode builtin engines behind the router on 127.0.0.1:8000 in disagg mode,
 * streams one sample answer to the console, prints a {@code curl} line to try next, and serves
 * until Ctrl-C, which stops every process it started.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Make the tiny model, start 1 prefill + 2 decode engines and the router, stream a sample.")
public final class DemoCommand implements Callable<Integer> {

  @Option(names = "--model-dir", defaultValue = "models/tiny",
      description = "Model folder; the tiny model is made there if it has no config.json. Default: ${DEFAULT-VALUE}.")
  Path modelDir;

  @Option(names = "--router-port", defaultValue = "8000", description = "Default: ${DEFAULT-VALUE}.")
  int routerPort;

  // An initial value, not defaultValue: picocli does not split a default string into arity 3.
  @Option(names = "--endpoint-ports", arity = "3",
      description = "Ports of the prefill engine and the two decode engines. Default: 8081 8082 8083.")
  List<Integer> endpointPorts = new ArrayList<>(List.of(8081, 8082, 8083));

  @Option(names = "--log-dir", defaultValue = "logs", description = "Engine logs. Default: ${DEFAULT-VALUE}.")
  Path logDir;

  @Option(names = "--prompt", defaultValue = "Once upon a time, in a quiet village,",
      description = "The sample prompt. Default: ${DEFAULT-VALUE}.")
  String prompt;

  @Option(names = "--max-tokens", defaultValue = "48", description = "Default: ${DEFAULT-VALUE}.")
  int maxTokens;

  @Option(names = "--exit-after-sample", hidden = true,
      description = "Stop everything after the sample instead of serving (tests).")
  boolean exitAfterSample;

  private final PrintStream out = System.out;

  @Override
  public Integer call() throws Exception {
    ensureModel();
    RouterConfig config = new RouterConfig().set(MODEL, modelDir.toString())
        .set(ROUTER_MODE, RouterMode.DISAGG).set(ROUTER_HOST, "127.0.0.1")
        .set(ROUTER_PORT, routerPort)
        .set(ENDPOINT_PORTS, endpointPorts).set(LOG_DIR, logDir.toString())
        .set(ENGINE_JVM_OPTS, List.of("-Xmx384m"));
    try {
      ConfigValidator.validateAll(config);
    } catch (ConfigException e) {
      System.err.println("tandem demo: " + e.getMessage());
      return ConfigException.EXIT_CODE;
    }
    Vertx vertx = NetworkTransports.apply(Vertx.builder(), NetworkTransport.AUTO).build();
    CountDownLatch stopped = new CountDownLatch(1);
    SupervisorVerticle supervisor = new SupervisorVerticle(config);
    Thread hook = new Thread(() -> ClusterVertx.drainThenClose("tandem demo", supervisor, vertx,
        config.get(DRAIN_TIMEOUT), config.get(STOP_GRACE).plusSeconds(10), stopped),
        "tandem-demo-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    out.println("tandem demo: starting 1 prefill + 2 decode engines (logs in " + logDir + ") ...");
    try {
      vertx.deployVerticle(supervisor).toCompletionStage().toCompletableFuture().get();
    } catch (ExecutionException e) {
      System.err.println("tandem demo: start-up failed: " + e.getCause().getMessage());
      return 1;
    }
    String base = "http://127.0.0.1:" + routerPort;
    out.println();
    out.println("Prompt: " + prompt);
    out.print("Answer:");
    out.flush();
    streamSample(base);
    out.println();
    if (isTinyModel()) {
      out.println("(The tiny model's weights are random, so its words are noise. The path is real: the"
          + " prefill engine computed the prompt's KV cache and shipped it to a decode engine, which"
          + " streamed this answer. --model-dir takes a real model's folder.)");
    }
    out.println();
    out.println("The router serves an OpenAI-compatible API on " + base + " (disagg mode). Try:");
    out.println("  curl -N " + base + "/v1/completions -H 'Content-Type: application/json' -d '"
        + new JsonObject().put("prompt", "Hello").put("max_tokens", 32).put("stream", true).encode()
        + "'");
    out.println("Also: " + base + "/v1/models, /ready, /metrics. Ctrl-C stops the router and its engines.");
    out.flush();
    if (exitAfterSample) {
      Runtime.getRuntime().removeShutdownHook(hook);
      hook.run();
    }
    stopped.await();
    return 0;
  }

  /** Writes the seeded tiny model (as {@code tandem make-model DIR --preset tiny}) if it is missing. */
  private void ensureModel() throws Exception {
    if (Files.isRegularFile(modelDir.resolve("config.json"))
        && Files.isRegularFile(modelDir.resolve("tokenizer.json"))) {
      return;
    }
    LlamaConfig c = ModelPreset.TINY.config();
    RandomModelWriter.write(modelDir, c, 0, SafetensorsDtype.F32);
    TokenizerFilesWriter.write(modelDir, c.vocabSize(), c.maxPositionEmbeddings(), 0);
    out.println("tandem demo: made the tiny model in " + modelDir);
  }

  /** Whether the model is the tiny preset that make-model writes: random weights, not a trained model. */
  private boolean isTinyModel() {
    try {
      JsonObject config = new JsonObject(Files.readString(modelDir.resolve("config.json")));
      return config.equals(RandomModelWriter.configJson(ModelPreset.TINY.config(), SafetensorsDtype.F32));
    } catch (Exception e) {
      return false; // whatever it is, the engines read it; the note is only for the tiny one
    }
  }

  /** Streams the sample completion, printing each piece of text as it arrives. */
  private void streamSample(String base) throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    // Seeded sampling: the random tiny model's greedy answer is one token repeated.
    JsonObject body = new JsonObject().put("prompt", prompt).put("max_tokens", maxTokens)
        .put("temperature", 1.0).put("seed", 42).put("stream", true);
    HttpResponse<InputStream> response = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/completions"))
        .timeout(Duration.ofMinutes(2)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.encode())).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        if (!line.startsWith("data: ") || line.equals("data: [DONE]")) {
          continue;
        }
        JsonObject chunk = new JsonObject(line.substring(6));
        if (chunk.containsKey("error")) {
          out.print(" [error: " + chunk.getJsonObject("error").getString("message") + "]");
          break;
        }
        for (Object c : chunk.getJsonArray("choices", new JsonArray())) {
          out.print(((JsonObject) c).getString("text"));
          out.flush();
        }
      }
    }
  }
}
