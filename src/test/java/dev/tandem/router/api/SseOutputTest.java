package dev.tandem.router.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.router.dispatch.AnswerEnd;
import dev.tandem.router.dispatch.ClientChunk;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pending buffers come from a pool and are the output's to give back: every one is released
 * once written, whether the stream ends well, fails or loses its client halfway.
 */
class SseOutputTest {

  /** Hands out unpooled direct buffers and keeps each, to check that all were released. */
  private static final class CountingPool extends AbstractByteBufAllocator {
    final List<ByteBuf> handedOut = new CopyOnWriteArrayList<>();

    CountingPool() {
      super(true);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      ByteBuf b = UnpooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
      handedOut.add(b);
      return b;
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      throw new AssertionError("the output asks for direct buffers");
    }

    @Override
    public boolean isDirectBufferPooled() {
      return true;
    }

    long unreleased() {
      return handedOut.stream().filter(b -> b.refCnt() != 0).count();
    }
  }

  private record Event(String data) implements ClientChunk {
    @Override
    public JsonObject toJson() {
      return new JsonObject().put("data", data);
    }

    @Override
    public Buffer toSse() {
      return Buffer.buffer("data: " + data + "\n\n");
    }
  }

  private Vertx vertx;
  private HttpServer server;
  private final CountingPool pool = new CountingPool();
  private final CompletableFuture<Void> ended = new CompletableFuture<>();

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** A server whose every request is streamed by {@code stream} through an SseOutput. */
  private int serve(BiConsumer<SseOutput, HttpServerResponse> stream) throws Exception {
    server = vertx.createHttpServer().requestHandler(req -> stream.accept(
        new SseOutput(req.response(), true, pool), req.response()));
    return server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture()
        .get(10, TimeUnit.SECONDS).actualPort();
  }

  /** Writes {@code count} events 2 ms apart (each flushed on its own), then {@code last}. */
  private void writeSpaced(SseOutput out, int count, Runnable last) {
    out.write(new Event("0"));
    int[] sent = {1};
    vertx.setPeriodic(2, id -> {
      if (sent[0] < count) {
        out.write(new Event(Integer.toString(sent[0]++)));
        return;
      }
      vertx.cancelTimer(id);
      last.run();
      vertx.setTimer(50, t -> ended.complete(null)); // the last write's completion has run
    });
  }

  private static String get(int port, int readBytes) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      OutputStream os = s.getOutputStream();
      os.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII));
      os.flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      byte[] buf = new byte[4096];
      for (int n; got.size() < readBytes && (n = in.read(buf)) > 0; ) {
        got.write(buf, 0, n);
      }
      return got.toString(StandardCharsets.US_ASCII);
    }
  }

  @Test
  void everyPendingBufferIsReleasedOnceWritten() throws Exception {
    int port = serve((out, response) -> writeSpaced(out, 20, () -> out.complete(
        AnswerEnd.of(new JsonObject().put("usage", 1), null))));
    String answer = get(port, Integer.MAX_VALUE); // until the server closes the connection
    ended.get(10, TimeUnit.SECONDS);
    assertTrue(answer.contains("data: 19\n\n") && answer.contains("data: [DONE]"), answer);
    assertTrue(pool.handedOut.size() >= 2, "several flushes: " + pool.handedOut.size());
    assertEquals(0, pool.unreleased(), "pending buffers not given back");
  }

  @Test
  void buffersAreReleasedWhenTheClientLeavesMidStream() throws Exception {
    int port = serve((out, response) -> writeSpaced(out, 40, () -> out.complete(
        AnswerEnd.of(new JsonObject().put("usage", 1), null))));
    String head = get(port, 1); // reads the first bytes and hangs up
    assertTrue(head.startsWith("HTTP/1.1 200"), head);
    ended.get(10, TimeUnit.SECONDS);
    assertTrue(pool.handedOut.size() >= 2, "writes after the client left: " + pool.handedOut.size());
    assertEquals(0, pool.unreleased(), "pending buffers not given back");
  }

  @Test
  void buffersAreReleasedWhenTheStreamFails() throws Exception {
    int port = serve((out, response) -> writeSpaced(out, 5, () -> {
      out.write(new Event("unflushed")); // pending when the failure comes
      out.fail(new IllegalStateException("engine gone"));
    }));
    String answer = get(port, Integer.MAX_VALUE);
    ended.get(10, TimeUnit.SECONDS);
    assertTrue(answer.contains("data: unflushed\n\n") && answer.contains("engine gone"), answer);
    assertEquals(0, pool.unreleased(), "pending buffers not given back");
  }

  /**
   * The loop's pending bytes are shared by the streams on it: two streams writing in turn on one
   * loop each get exactly their own events, in order, however their writes interleave.
   */
  @Test
  void streamsOnOneLoopEachGetOnlyTheirOwnEvents() throws Exception {
    List<SseOutput> outs = new CopyOnWriteArrayList<>();
    List<Thread> threads = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> firstArrived = new CompletableFuture<>();
    int port = serve((out, response) -> {
      outs.add(out);
      threads.add(Thread.currentThread());
      if (outs.size() == 1) {
        out.write(new Event("a0")); // pending while the second request arrives
        firstArrived.complete(null);
        return;
      }
      SseOutput a = outs.get(0);
      SseOutput b = outs.get(1);
      a.write(new Event("a1"));
      b.write(new Event("b1"));
      b.write(new Event("b2"));
      a.write(new Event("a2"));
      b.complete(AnswerEnd.of(new JsonObject().put("b", "end"), null));
      a.write(new Event("a3"));
      a.complete(AnswerEnd.of(new JsonObject().put("a", "end"), null));
      vertx.setTimer(50, t -> ended.complete(null));
    });
    CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
      try {
        return get(port, Integer.MAX_VALUE);
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    firstArrived.get(10, TimeUnit.SECONDS);
    String second = get(port, Integer.MAX_VALUE);
    String firstAnswer = first.get(10, TimeUnit.SECONDS);
    ended.get(10, TimeUnit.SECONDS);
    assertEquals(threads.get(0), threads.get(1), "both streams on one loop, or this tests nothing");
    assertEquals("data: a0\n\ndata: a1\n\ndata: a2\n\ndata: a3\n\ndata: {\"a\":\"end\"}\n\n"
        + "data: [DONE]\n\n", events(firstAnswer));
    assertEquals("data: b1\n\ndata: b2\n\ndata: {\"b\":\"end\"}\n\ndata: [DONE]\n\n",
        events(second));
    assertEquals(0, pool.unreleased(), "pending buffers not given back");
  }

  /** The body of an HTTP/1.1 answer, its chunked framing (if any) taken out. */
  private static String events(String answer) {
    String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
    if (!answer.toLowerCase(java.util.Locale.ROOT).contains("transfer-encoding: chunked")) {
      return body;
    }
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (true) {
      int lineEnd = body.indexOf("\r\n", at);
      int size = Integer.parseInt(body.substring(at, lineEnd), 16);
      if (size == 0) {
        return out.toString();
      }
      out.append(body, lineEnd + 2, lineEnd + 2 + size);
      at = lineEnd + 2 + size + 2;
    }
  }
}
