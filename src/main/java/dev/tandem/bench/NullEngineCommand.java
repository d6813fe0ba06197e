package dev.tandem.bench;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * {@code tandem bench null-engine}: serves {@link NullEngineServer} until stopped. Accepts and
 * ignores {@code mlc_llm serve}'s other flags, so a router can launch it in place of an engine
 * (see bench/null-engine-python).
 */
@Command(name = "null-engine", mixinStandardHelpOptions = true,
    description = "An engine API with no model: fixed-pace answers (or, with zero delays, whole answers at"
        + " once), for measuring proxies and routers.")
public final class NullEngineCommand implements Callable<Integer> {

  @Option(names = "--host", defaultValue = "127.0.0.1")
  String host;

  @Option(names = "--port", required = true)
  int port;

  @Option(names = "--first-token-ms", defaultValue = "20", description = "Delay to the first token. Default ${DEFAULT-VALUE}")
  long firstTokenMs;

  @Option(names = "--token-gap-ms", defaultValue = "5", description = "Gap between tokens; 0: the whole answer in"
      + " one write once the first token is due (with --first-token-ms 0: a zero-cost upstream). Default ${DEFAULT-VALUE}")
  long tokenGapMs;

  @Option(names = "--instances", defaultValue = "1", description = "Server verticles (event loops). Default ${DEFAULT-VALUE}")
  int instances;

  @Unmatched
  List<String> ignored = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(Math.max(1, instances)));
    NullEngineServer.deploy(vertx, host, port, firstTokenMs, tokenGapMs, instances)
        .toCompletionStage().toCompletableFuture().get();
    System.err.println("null engine listening on " + host + ":" + port + " (first token " + firstTokenMs
        + " ms, then every " + tokenGapMs + " ms)");
    UntilStopped.await(vertx);
    return 0;
  }
}
