package dev.tandem.router.metrics;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
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
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --access-log}: one JSON line per completion or chat request, however it ended — who
 * asked, the ids, the status, the tokens and the times (docs/operations.md has the fields). The
 * event loops only hand an {@link Entry} over (a lock-free queue offer, never a wait or a
 * wake-up); one daemon thread writes the queued lines every {@value #WRITE_PERIOD_MS} ms and
 * flushes. When the writer falls {@value #QUEUE} lines behind, further lines are dropped and
 * counted ({@link #dropped}) rather than slowing the router.
 */
public final class AccessLog {

  private static final Logger LOG = LoggerFactory.getLogger(AccessLog.class);
  static final int QUEUE = 65_536;

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

    /** The line's JSON, appended to {@code line}: absent values left out, times in ms to 0.001. */
    void appendTo(StringBuilder line, Timestamps times) {
      line.append("{\"time\":\"");
      times.append(line, arrivedMillis);
      line.append("\",\"transport\":");
      quoted(line, transport);
      line.append(",\"api\":");
      quoted(line, api);
      if (key != null) {
        quoted(line.append(",\"key\":"), key);
      }
      if (clientRequestId != null) {
        quoted(line.append(",\"request_id\":"), clientRequestId);
      }
      if (id != null) {
        quoted(line.append(",\"id\":"), id);
      }
      if (stream != null) {
        line.append(",\"stream\":").append(stream.booleanValue());
      }
      line.append(",\"status\":").append(status);
      if (errorCode != null || errorMessage != null) {
        quoted(line.append(",\"error\":{\"code\":"), errorCode);
        quoted(line.append(",\"message\":"), errorMessage).append('}');
      }
      if (promptTokens >= 0) {
        line.append(",\"prompt_tokens\":").append(promptTokens);
      }
      if (completionTokens >= 0) {
        line.append(",\"completion_tokens\":").append(completionTokens);
      }
      millis(line, ",\"queued_ms\":", queuedMs);
      millis(line, ",\"ttft_ms\":", ttftMs);
      millis(line, ",\"total_ms\":", totalMs);
      if (engine >= 0) {
        line.append(",\"engine\":").append(engine);
      }
      line.append('}');
    }

    /** {@code s} as a JSON string (Jackson's escapes), or null. */
    private static StringBuilder quoted(StringBuilder line, String s) {
      if (s == null) {
        return line.append("null");
      }
      line.append('"');
      JsonStringEncoder.getInstance().quoteAsString(s, line);
      return line.append('"');
    }

    /** {@code ms} to the microsecond ({@code 12.408}), unless negative (unknown). */
    private static void millis(StringBuilder line, String name, double ms) {
      if (ms < 0) {
        return;
      }
      long micros = Math.round(ms * 1000);
      line.append(name).append(micros / 1000).append('.');
      long frac = micros % 1000;
      if (frac < 100) {
        line.append(frac < 10 ? "00" : "0");
      }
      line.append(frac);
    }
  }

  /**
   * ISO-8601 UTC times to the millisecond ({@code 2026-12-07T21:40:03.512Z}): the part up to the
   * second formatted once per second, the writer's own.
   */
  static final class Timestamps {
    private long second = Long.MIN_VALUE;
    private String upToSecond;

    void append(StringBuilder line, long epochMillis) {
      long s = Math.floorDiv(epochMillis, 1000);
      if (s != second) {
        second = s;
        String iso = Instant.ofEpochSecond(s).toString(); // 2026-12-07T21:40:03Z
        upToSecond = iso.substring(0, iso.length() - 1);
      }
      int ms = (int) Math.floorMod(epochMillis, 1000);
      line.append(upToSecond).append('.');
      if (ms < 100) {
        line.append(ms < 10 ? "00" : "0");
      }
      line.append(ms).append('Z');
    }
  }

  /** How long the writer sleeps when it has caught up: lines reach the file within about this. */
  static final long WRITE_PERIOD_MS = 50;

  private final Queue<Entry> queue = new ConcurrentLinkedQueue<>();
  /** Entries queued and not yet taken by the writer (the bound: {@value #QUEUE}). */
  private final AtomicInteger queued = new AtomicInteger();
  private final LongAdder dropped = new LongAdder();
  private volatile boolean closing;
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
    if (broken) {
      return;
    }
    if (queued.incrementAndGet() > QUEUE) {
      queued.decrementAndGet();
      dropped.increment();
      return;
    }
    queue.offer(entry);
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
    closing = true;
    LockSupport.unpark(writer);
    writer.join(waitMs);
  }

  /**
   * The writer: every {@value #WRITE_PERIOD_MS} ms, or at close, writes every queued line and
   * flushes. Sleeping between rounds, rather than waking for each line, keeps a request's cost
   * to a queue offer (a wake-up per request was most of the log's cost at low load).
   */
  private void writeLines() {
    StringBuilder line = new StringBuilder(512);
    Timestamps times = new Timestamps();
    try {
      while (true) {
        boolean last = closing; // read before draining: what was queued before close is written
        boolean wrote = false;
        for (Entry e = queue.poll(); e != null; e = queue.poll()) {
          queued.decrementAndGet();
          line.setLength(0);
          e.appendTo(line, times);
          out.append(line).append('\n');
          wrote = true;
        }
        if (wrote) {
          out.flush();
        }
        if (last) {
          break;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(WRITE_PERIOD_MS));
      }
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
