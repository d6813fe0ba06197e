package dev.tandem.client;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A Vert.x application that is not Tandem, for ClusterBusIT: its own clustered Vert.x, built with
 * no Tandem code and no cluster configuration in code (HazelcastClusterManager finds cluster.xml
 * the Vert.x way: the jar's, or the file named by {@code -Dvertx.hazelcast.config}), and
 * {@link TandemBusClient}. It reads commands on stdin, one per line, and answers on stdout:
 *
 * <pre>
 * whole FLEET JSON  -> WHOLE answer-json | FAILED status code
 * slow FLEET JSON   -> SLOW report-json   (window 2, one chunk taken every 30 ms)
 * hang FLEET JSON   -> HANGING id         (takes one chunk, then demands nothing more)
 * </pre>
 */
public final class BusClientApp {

  private BusClientApp() {}

  public static void main(String[] args) throws Exception {
    Vertx vertx = Vertx.builder().withClusterManager(new HazelcastClusterManager())
        .buildClustered().toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
    say("READY");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] parts = line.split(" ", 3);
      TandemBusClient tandem = TandemBusClient.create(vertx).fleet(parts[1]);
      JsonObject body = new JsonObject(parts[2]);
      vertx.runOnContext(v -> run(vertx, tandem, parts[0], body));
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static void run(Vertx vertx, TandemBusClient tandem, String command, JsonObject body) {
    switch (command) {
      case "whole" -> tandem.completion(body)
          .onSuccess(answer -> say("WHOLE " + answer.encode()))
          .onFailure(BusClientApp::failed);
      case "slow" -> slow(vertx, tandem.window(2), body);
      case "hang" -> tandem.window(2).streamCompletion(body).onSuccess(stream -> {
        stream.pause().handler(chunk -> say("HANGING " + stream.id()));
        stream.fetch(1);
      }).onFailure(BusClientApp::failed);
      default -> say("FAILED 0 unknown_command");
    }
  }

  /** One chunk at a time, slowly; checks at every chunk that the router kept within credit. */
  private static void slow(Vertx vertx, TandemBusClient tandem, JsonObject body) {
    tandem.streamCompletion(body).onSuccess(stream -> {
      StringBuilder text = new StringBuilder();
      int[] chunks = {0};
      long[] worst = {Long.MIN_VALUE, 0};
      stream.pause();
      stream.handler(chunk -> {
        chunks[0]++;
        JsonArray choices = chunk.getJsonArray("choices");
        if (choices != null && !choices.isEmpty()) {
          text.append(choices.getJsonObject(0).getString("text", ""));
        }
        worst[0] = Math.max(worst[0], stream.chunksReceived() - stream.creditGranted());
        worst[1] = Math.max(worst[1], stream.buffered());
        vertx.setTimer(30, id -> stream.fetch(1));
      }).endHandler(v -> say("SLOW " + new JsonObject().put("chunks", chunks[0])
          .put("text", text.toString()).put("received", stream.chunksReceived())
          .put("granted", stream.creditGranted()).put("worstOverCredit", worst[0])
          .put("mostBuffered", worst[1]).encode()))
          .exceptionHandler(BusClientApp::failed);
      stream.fetch(1);
    }).onFailure(BusClientApp::failed);
  }

  private static void failed(Throwable err) {
    if (err instanceof TandemBusException e) {
      say("FAILED " + e.status() + " " + e.code());
    } else {
      say("FAILED 0 " + err);
    }
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
