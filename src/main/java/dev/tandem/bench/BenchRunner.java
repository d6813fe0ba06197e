package dev.tandem.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintStream;
import java.net.URI;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one benchmark on its own event-loop context: finds the model name when none was given,
 * drives the load, closes the client and builds the report.
 */
public final class BenchRunner {

  private static final Logger LOG = LoggerFactory.getLogger(BenchRunner.class);

  private BenchRunner() {
  }

  /** Callable from any non-event-loop thread; the work happens on a fresh context of {@code vertx}. */
  public static Future<BenchReport> run(Vertx vertx, BenchOptions options, PrintStream progressOut) {
    Context context = vertx.getOrCreateContext();
    Promise<BenchReport> result = Promise.promise();
    context.runOnContext(v -> resolveModel(vertx, options)
        .compose(model -> runWith(vertx, options, model, progressOut))
        .onComplete(result));
    return result.future();
  }

  private static Future<BenchReport> runWith(Vertx vertx, BenchOptions options, String model, PrintStream out) {
    CompletionClient client = new CompletionClient(vertx, options.url(), options.poolSize(), options.timeoutMillis(),
        model, options.stream(), options.ignoreEos(), options.api());
    String planned = options.requests() > 0
        ? Long.toString(options.requests() + options.warmupRequests())
        : ConsoleReport.num(options.durationSeconds() + options.warmupSeconds()) + "s";
    ProgressLine progress = new ProgressLine(vertx, out, options.progress(), planned);
    Instant started = Instant.now();
    return new LoadDriver(vertx, options, client, new WorkloadGenerator(options.workload()), progress).run()
        .eventually(() -> client.close())
        .map(record -> BenchReport.of(options, started, record));
  }

  /** The given model, else the first id of GET /v1/models, else null (field left out). */
  static Future<String> resolveModel(Vertx vertx, BenchOptions options) {
    if (options.model() != null) {
      return Future.succeededFuture(options.model());
    }
    URI uri = CompletionClient.completionsUri(options.url());
    String path = uri.getRawPath().substring(0, uri.getRawPath().length() - "/completions".length()) + "/models";
    HttpClientAgent http = vertx.createHttpClient();
    return http.request(new RequestOptions().setMethod(HttpMethod.GET).setHost(uri.getHost()).setPort(uri.getPort())
            .setURI(path).setIdleTimeout(10_000))
        .compose(req -> req.send())
        .compose(resp -> resp.statusCode() == 200 ? resp.body() : Future.failedFuture("status " + resp.statusCode()))
        .map(body -> {
          JsonArray data = new JsonObject(body).getJsonArray("data");
          return data == null || data.isEmpty() ? null : data.getJsonObject(0).getString("id");
        })
        .otherwise(e -> {
          LOG.info("GET {} gave no model name ({}); sending requests without 'model'", path, e.getMessage());
          return null;
        })
        .eventually(() -> http.close());
  }
}
