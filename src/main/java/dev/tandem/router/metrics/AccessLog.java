package dev.tandem.router.metrics;

import io.vertx.core.json.JsonObject;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --access-log}: one JSON line per completion or chat request, however it ended — who
 * asked, the ids, the status, the tokens and the times (docs/operations.md has the fields). The
 * event loops only hand an {@link Entry} over (a queue offer, never a wait); one daemon thread
 * formats and writes the lines, flushing whenever the queue runs empty. When the writer falls
 * {@value #QUEUE} lines behind, further lines are dropped and counted ({@link #dropped}) rather
 * than slowing the router.
 */
public final class AccessLog {

  private static final Logger LOG = LoggerFactory.getLogger(AccessLog.class);
  static final int QUEUE = 65_536;
  /** The entry that tells the writer to finish. */
  private static final Entry END = new Entry(0, null, null, null, null, null, null, 0, null, null,
      -1, -1, -1, -1, -1, -1);

  /**
   * One request as the log line has it.
   *
   * @param arrivedMillis wall-clock time the request arrived
   * @param transport {@code http} or {@code bus}
   * @param api {@code completions} or {@code chat}
   * @param key the API key's name ({@code anonymous} without keys; null when the key was refused)
   * @param clientRequestId the client's {@code X-Request-Id} (bus: delivery header), or null
   * @param id the answer's id ({@code cmpl-...}, {@code chatcmpl-...}); null when the request was
   *     refused before it had one
   * @param stream null when the request was refused before it was read
   * @param status what the client was told: 200, or the failure's status (a stream's error
   *     event, after its 200, counts as its error's)
   * @param errorCode the failure's OpenAI code (or its type where it has none); null on success
   * @param promptTokens -1 where unknown (here and below)
   * @param engine the engine that served it (the decode engine in disagg mode), -1 for none
   */
  public record Entry(long arrivedMillis, String transport, String api, String key,
      String clientRequestId, String id, Boolean stream, int status, String errorCode,
      String errorMessage, long promptTokens, long completionTokens, double queuedMs,
      double ttftMs, double totalMs, int engine) {

    /** The line's JSON: absent values left out, times in milliseconds to 0.001. */
    JsonObject toJson() {
      JsonObject line = new JsonObject()
          .put("time", Instant.ofEpochMilli(arrivedMillis).toString())
          .put("transport", transport).put("api", api);
      putIf(line, "key", key);
      putIf(line, "request_id", clientRequestId);
      putIf(line, "id", id);
      if (stream != null) {
        line.put("stream", stream);
      }
      line.put("status", status);
      if (errorCode != null || errorMessage != null) {
        line.put("error", new JsonObject().put("code", errorCode).put("message", errorMessage));
      }
      if (promptTokens >= 0) {
        line.put("prompt_tokens", promptTokens);
      }
      if (completionTokens >= 0) {
        line.put("completion_tokens", completionTokens);
      }
      putMs(line, "queued_ms", queuedMs);
      putMs(line, "ttft_ms", ttftMs);
      putMs(line, "total_ms", totalMs);
      if (engine >= 0) {
        line.put("engine", engine);
      }
      return line;
    }

    private static void putIf(JsonObject line, String name, String value) {
      if (value != null) {
        line.put(name, value);
      }
    }

    private static void putMs(JsonObject line, String name, double ms) {
      if (ms >= 0) {
        line.put(name, Math.round(ms * 1000) / 1000.0);
      }
    }
  }

  private final BlockingQueue<Entry> queue = new ArrayBlockingQueue<>(QUEUE);
  private final LongAdder dropped = new LongAdder();
  private final Writer out;
  private final boolean closeOut;
  private final Thread writer;
  private final String target;
  /** Set once a write failed: lines are no longer queued. */
  private volatile boolean broken;

  private AccessLog(Writer out, boolean closeOut, String target) {
    this.out = out;
    this.closeOut = closeOut;
    this.target = target;
    this.writer = new Thread(this::writeLines, "tandem-access-log");
    writer.setDaemon(true);
    writer.start();
  }

  /**
   * The log at {@code target}: {@code -} for standard output, else a file, created or appended
   * to (blocking: call off the event loop).
   */
  public static AccessLog open(String target) throws IOException {
    if (target.equals("-")) {
      return new AccessLog(new BufferedWriter(new OutputStreamWriter(System.out,
          StandardCharsets.UTF_8)), false, "standard output");
    }
    Path file = Path.of(target);
    return new AccessLog(Files.newBufferedWriter(file, StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE), true,
        file.toString());
  }

  /** Hands one request's line to the writer; never waits (dropped, and counted, when behind). */
  public void log(Entry entry) {
    if (!broken && !queue.offer(entry)) {
      dropped.increment();
    }
  }

  /** Lines dropped because the writer was {@value #QUEUE} lines behind. */
  public long dropped() {
    return dropped.sum();
  }

  /** Where the lines go, for the router's log. */
  public String target() {
    return target;
  }

  /**
   * Writes what is queued, then stops the writer and closes the file (blocking, at most
   * {@code waitMs}: call off the event loop).
   */
  public void close(long waitMs) throws InterruptedException {
    if (!queue.offer(END)) {
      writer.interrupt();
    }
    writer.join(waitMs);
  }

  private void writeLines() {
    try {
      while (true) {
        Entry e = queue.poll();
        if (e == null) {
          out.flush();
          e = queue.poll(1, TimeUnit.HOURS);
          if (e == null) {
            continue;
          }
        }
        if (e == END) {
          break;
        }
        out.write(e.toJson().encode());
        out.write('\n');
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("access log {}: {}; no more lines are written", target, e.toString());
      broken = true;
      queue.clear();
    } finally {
      finish();
    }
  }

  private void finish() {
    try {
      out.flush();
      if (closeOut) {
        out.close();
      }
    } catch (IOException e) {
      LOG.warn("access log {}: {}", target, e.toString());
    }
  }
}
