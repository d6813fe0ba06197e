package dev.tandem.bench;

import com.hazelcast.config.Config;
import dev.tandem.client.TandemBusClient;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tandem bench bus-latency}: the same whole completions, one at a time, over the router's
 * HTTP API and over its event-bus API from a clustered Vert.x application (this process joins
 * the cluster as one), alternating request by request so that both see the same fleet and
 * load. Prints a Markdown table of the latencies and the bus/HTTP ratio, and checks that every
 * pair of answers is the same (greedy decoding).
 */
@Command(name = "bus-latency", mixinStandardHelpOptions = true,
    description = "Whole completions over HTTP and over the clustered event bus, side by side.")
public final class BusLatencyCommand implements Callable<Integer> {

  @Option(names = "--url", required = true, description = "The router's base URL (HTTP side).")
  String url;

  @Option(names = "--cluster-config", required = true, description = "Hazelcast XML to join with.")
  Path clusterConfig;

  @Option(names = "--cluster-host", required = true, description = "This member's bus address.")
  String clusterHost;

  @Option(names = "--fleet", defaultValue = "tandem", description = "Default ${DEFAULT-VALUE}")
  String fleet;

  @Option(names = "--requests", defaultValue = "200", description = "Per path. Default ${DEFAULT-VALUE}")
  int requests;

  @Option(names = "--warmup", defaultValue = "50", description = "Per path, not counted. Default ${DEFAULT-VALUE}")
  int warmup;

  @Option(names = "--max-tokens", defaultValue = "8", description = "Default ${DEFAULT-VALUE}")
  int maxTokens;

  @Override
  public Integer call() throws Exception {
    Config hazelcast = Config.loadFromFile(clusterConfig.toFile());
    Vertx vertx = Vertx.builder()
        .with(new VertxOptions().setEventBusOptions(new EventBusOptions().setHost(clusterHost)))
        .withClusterManager(new HazelcastClusterManager(hazelcast)).buildClustered()
        .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    try {
      URI base = URI.create(url);
      WebClient http = WebClient.create(vertx);
      TandemBusClient bus = TandemBusClient.create(vertx).fleet(fleet);
      Promise<Result> done = Promise.promise();
      vertx.runOnContext(v -> run(http, bus, base, 0, new Result()).onComplete(done));
      Result result = done.future().toCompletionStage().toCompletableFuture()
          .get(30, TimeUnit.MINUTES);
      System.out.println(result.table());
      return result.mismatches == 0 && result.failures == 0 ? 0 : 1;
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  /** Request {@code i}: HTTP first on even ones, the bus first on odd ones. */
  private Future<Result> run(WebClient http, TandemBusClient bus, URI base, int i, Result result) {
    if (i == warmup + requests) {
      return Future.succeededFuture(result);
    }
    JsonObject body = new JsonObject().put("prompt", "Request " + (i % 16) + " of the bench")
        .put("max_tokens", maxTokens).put("temperature", 0);
    boolean counted = i >= warmup;
    Future<Sample> first = i % 2 == 0 ? overHttp(http, base, body) : overBus(bus, body);
    return first.compose(a -> (i % 2 == 0 ? overBus(bus, body) : overHttp(http, base, body))
            .map(b -> {
              Sample viaHttp = i % 2 == 0 ? a : b;
              Sample viaBus = i % 2 == 0 ? b : a;
              if (counted) {
                result.add(viaHttp, viaBus);
              }
              return result;
            }))
        .recover(err -> {
          result.failures++;
          System.err.println("request " + i + ": " + err);
          return Future.succeededFuture(result);
        })
        .compose(r -> run(http, bus, base, i + 1, r));
  }

  private static Future<Sample> overHttp(WebClient http, URI base, JsonObject body) {
    long t0 = System.nanoTime();
    int port = base.getPort() > 0 ? base.getPort() : 80;
    return http.post(port, base.getHost(), "/v1/completions").sendJsonObject(body)
        .compose(resp -> resp.statusCode() == 200 ? Future.succeededFuture(resp.bodyAsJsonObject())
            : Future.failedFuture("HTTP " + resp.statusCode() + ": " + resp.bodyAsString()))
        .map(answer -> new Sample(System.nanoTime() - t0, text(answer)));
  }

  private static Future<Sample> overBus(TandemBusClient bus, JsonObject body) {
    long t0 = System.nanoTime();
    return bus.completion(body).map(answer -> new Sample(System.nanoTime() - t0, text(answer)));
  }

  private static String text(JsonObject answer) {
    return answer.getJsonArray("choices").getJsonObject(0).getString("text");
  }

  private record Sample(long nanos, String text) {}

  private static final class Result {
    final List<Long> http = new ArrayList<>();
    final List<Long> bus = new ArrayList<>();
    int mismatches;
    int failures;

    void add(Sample viaHttp, Sample viaBus) {
      http.add(viaHttp.nanos());
      bus.add(viaBus.nanos());
      if (!viaHttp.text().equals(viaBus.text())) {
        mismatches++;
      }
    }

    String table() {
      LatencySummary h = LatencySummary.of(millis(http));
      LatencySummary b = LatencySummary.of(millis(bus));
      StringBuilder out = new StringBuilder();
      out.append("| path | requests | p50 ms | p90 ms | p99 ms | mean ms |\n");
      out.append("|---|---:|---:|---:|---:|---:|\n");
      out.append(row("HTTP /v1/completions", http.size(), h));
      out.append(row("bus tandem.completions", bus.size(), b));
      out.append(String.format(Locale.ROOT, "%nbus/HTTP p50 %.2fx, p99 %.2fx; answers differing: %d;"
          + " failed requests: %d%n", b.p50() / h.p50(), b.p99() / h.p99(), mismatches, failures));
      return out.toString();
    }

    private static double[] millis(List<Long> nanos) {
      return nanos.stream().mapToDouble(n -> n / 1e6).toArray();
    }

    private static String row(String name, int n, LatencySummary s) {
      return String.format(Locale.ROOT, "| %s | %d | %.2f | %.2f | %.2f | %.2f |%n", name, n,
          s.p50(), s.p90(), s.p99(), s.mean());
    }
  }
}
