package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Conversations against a scripted server: turns in order, never two of one conversation at once. */
@ExtendWith(VertxExtension.class)
class MultiTurnLoadDriverTest {

  private ScriptedCompletionServer server;
  private String url;

  @BeforeEach
  void start(Vertx vertx, VertxTestContext ctx) {
    server = new ScriptedCompletionServer(vertx, 20, 2);
    server.start().onComplete(ctx.succeeding(port -> {
      url = "http://127.0.0.1:" + port;
      ctx.completeNow();
    }));
  }

  @AfterEach
  void stop(VertxTestContext ctx) {
    server.close().onComplete(ctx.succeedingThenComplete());
  }

  /** Two users, 12 turns in all: conversations of 3 turns of 5 words, answers of 4 tokens. */
  private Future<BenchReport> run(Vertx vertx, BenchApi api) {
    WorkloadSpec w = new WorkloadSpec(List.of(new WorkloadClass("chat", LengthDistribution.parse("5"),
        LengthDistribution.parse("4"), 1)), PromptKind.TEXT, 0, 0, null, 3, new MultiTurn(3, 0.01, 10_000));
    BenchOptions o = new BenchOptions(url, null, true, true, 2, 0, 12, 0, 0, 0, 64, 10_000, w,
        Double.NaN, Double.NaN, false, api);
    return Future.future(p -> new Thread(() -> BenchRunner.run(vertx, o,
        new PrintStream(OutputStream.nullOutputStream())).onComplete(p)).start());
  }

  @Test
  @Timeout(value = 20, timeUnit = TimeUnit.SECONDS)
  void closedLoopUsersRunTheirConversationsTurnByTurn(Vertx vertx, VertxTestContext ctx) {
    run(vertx, BenchApi.COMPLETIONS)
        .onComplete(ctx.succeeding(report -> ctx.verify(() -> {
          assertEquals(12, report.overall().ok());
          assertEquals(12, server.bodies.size());
          assertTrue(server.maxInFlight.get() <= 2, "two users, one turn each at a time");
          // per conversation ("#c" leads its prompts): 3 turns, arriving in order, each longer
          java.util.Map<String, List<Integer>> words = new java.util.TreeMap<>();
          for (JsonObject b : server.bodies) {
            String[] w2 = b.getString("prompt").split(" ");
            words.computeIfAbsent(w2[0], k -> new java.util.ArrayList<>()).add(w2.length);
          }
          assertEquals(4, words.size(), words.toString());
          for (List<Integer> lengths : words.values()) {
            assertEquals(List.of(6, 15, 24), lengths, "each turn adds a 4-word reply and 5 words");
          }
          ctx.completeNow();
        })));
  }

  /**
   * With {@code --api chat} each turn is a chat request: the earlier turns as user and assistant
   * messages, the new user message last, each turn's messages the last turn's plus two.
   */
  @Test
  @Timeout(value = 20, timeUnit = TimeUnit.SECONDS)
  void chatTurnsCarryTheConversationAsMessages(Vertx vertx, VertxTestContext ctx) {
    run(vertx, BenchApi.CHAT)
        .onComplete(ctx.succeeding(report -> ctx.verify(() -> {
          assertEquals(12, report.overall().ok());
          assertEquals(12 * 4, report.overall().outputTokens());
          assertTrue(server.paths.stream().allMatch("/v1/chat/completions"::equals), server.paths.toString());
          java.util.Map<String, List<JsonArray>> byConversation = new java.util.TreeMap<>();
          for (JsonObject b : server.bodies) {
            assertFalse(b.containsKey("prompt"));
            JsonArray messages = b.getJsonArray("messages");
            String first = messages.getJsonObject(0).getString("content").split(" ")[0];
            byConversation.computeIfAbsent(first, k -> new java.util.ArrayList<>()).add(messages);
          }
          assertEquals(4, byConversation.size(), byConversation.toString());
          for (List<JsonArray> turns : byConversation.values()) {
            assertEquals(List.of(1, 3, 5), turns.stream().map(JsonArray::size).toList());
            for (int t = 0; t < turns.size(); t++) {
              JsonArray m = turns.get(t);
              for (int i = 0; i < m.size(); i++) {
                assertEquals(i % 2 == 0 ? "user" : "assistant", m.getJsonObject(i).getString("role"));
              }
              if (t > 0) {
                assertEquals(turns.get(t - 1).getList(), m.getList().subList(0, m.size() - 2),
                    "a turn's messages begin with the last turn's");
              }
            }
          }
          ctx.completeNow();
        })));
  }
}
