package dev.tandem.router.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The access log's lines: one JSON object per entry, in order, absent values left out, appended
 * to what the file held, all written by close. The lines of a real router are OperationsIT's.
 */
class AccessLogTest {

  @TempDir Path dir;

  @Test
  void linesAreAppendedInOrderAndCloseWritesTheLast() throws Exception {
    Path file = dir.resolve("access.jsonl");
    Files.writeString(file, "{\"earlier\":true}\n");
    AccessLog log = AccessLog.open(file.toString());
    log.log(new AccessLog.Entry(1_796_000_000_123L, "http", "completions", "user", "trace-1",
        "cmpl-1", true, 200, null, null, 12, 8, 0.5, 3.25, 10.0004, 1));
    log.log(new AccessLog.Entry(1_796_000_001_005L, "bus", "chat", null, null, null, null, 401,
        "invalid_api_key", "no \"key\"\n\u00e9\u0001", -1, -1, -1, -1, 0.0204, -1));
    log.close(5_000);
    List<String> lines = Files.readAllLines(file);
    assertEquals(3, lines.size(), lines.toString());
    assertTrue(lines.get(2).startsWith("{\"time\":\"2026-11-30T00:53:21.005Z\","), lines.get(2));
    assertTrue(lines.get(2).endsWith(",\"total_ms\":0.020}"), lines.get(2));
    assertEquals(new JsonObject().put("earlier", true), new JsonObject(lines.get(0)));
    JsonObject ok = new JsonObject(lines.get(1));
    assertEquals(new JsonObject().put("time", "2026-11-30T00:53:20.123Z").put("transport", "http")
        .put("api", "completions").put("key", "user").put("request_id", "trace-1")
        .put("id", "cmpl-1").put("stream", true).put("status", 200).put("prompt_tokens", 12)
        .put("completion_tokens", 8).put("queued_ms", 0.5).put("ttft_ms", 3.25)
        .put("total_ms", 10.0).put("engine", 1), ok);
    JsonObject refused = new JsonObject(lines.get(2));
    assertEquals(new JsonObject().put("code", "invalid_api_key").put("message", "no \"key\"\n\u00e9\u0001"),
        refused.getJsonObject("error"));
    for (String absent : List.of("key", "request_id", "id", "stream", "prompt_tokens",
        "completion_tokens", "queued_ms", "ttft_ms", "engine")) {
      assertFalse(refused.containsKey(absent), absent + " in " + refused.encode());
    }
    assertTrue(refused.containsKey("total_ms"));
    assertEquals(0, log.dropped());
  }
}
