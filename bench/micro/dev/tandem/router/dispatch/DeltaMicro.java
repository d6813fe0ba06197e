package dev.tandem.router.dispatch;

import dev.tandem.api.JsonBytes;
import dev.tandem.api.JsonInts;
import dev.tandem.bench.micro.Timing;
import dev.tandem.router.upstream.Cancellation;
import dev.tandem.router.upstream.UsageExtra;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.json.JsonObject;

/** A streamed completion delta rendered for the client, as SseOutput writes them. */
public final class DeltaMicro {

  private DeltaMicro() {}

  private static ClientChunks chunks() {
    return new ClientChunks(new CompletionJob("cmpl-0123456789abcdef0123456789abcd",
        1_796_000_000L, "tiny", new JsonInts(new int[] {1}), null, null, 1, 64, true, false, null, 0.0, null,
        new JsonObject(), new Cancellation()));
  }

  /**
   * ns per delta, as SseOutput renders them: 64 deltas of {@code texts} into the loop's heap
   * writer, copied once into a pooled direct buffer per stream.
   */
  public static double nsPerDelta(String[] texts) {
    ClientChunks chunks = chunks();
    JsonBytes pending = JsonBytes.writer();
    return Timing.nsPerOp(count -> {
      long s = 0;
      for (int k = 0; k < count; k += 64) {
        pending.reset();
        for (int j = 0; j < 64; j++) {
          chunks.delta(0, texts[j % texts.length], null, null).appendSse(pending);
        }
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(pending.length());
        Buffer out = BufferInternal.buffer(b);
        pending.appendTo(out);
        s += out.length();
        b.release();
      }
      return s;
    }, 64 * 4000, 15);
  }

  /**
   * ns per stream end: the usage chunk with the engine's record {@code extra} and the routing,
   * rendered into the loop's writer as SseOutput renders it.
   */
  public static double nsPerUsageChunk(UsageExtra extra) {
    ClientChunks chunks = chunks();
    Routing routing = new Routing("least-loaded", new Routing.Pick("whole", 0,
        dev.tandem.router.policy.CacheAwarePolicy.Reason.LEAST_LOADED, 0, 1));
    JsonBytes w = JsonBytes.writer();
    return Timing.nsPerOp(count -> {
      long s = 0;
      for (int k = 0; k < count; k++) {
        w.reset();
        chunks.end(null, 32, 16, extra, routing).appendSse(w);
        s += w.length();
      }
      return s;
    }, 200_000, 15);
  }

  /**
   * ns per delta as sessions 11-12 wrote them: each delta rendered into the thread's writer and
   * appended to the stream's pooled direct buffer on its own (one Netty write per delta).
   */
  public static double nsPerDeltaAppendedEach(String[] texts) {
    ClientChunks chunks = chunks();
    return Timing.nsPerOp(count -> {
      long s = 0;
      for (int k = 0; k < count; k += 64) {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(8192);
        Buffer out = BufferInternal.buffer(b);
        for (int j = 0; j < 64; j++) {
          JsonBytes w = JsonBytes.threadWriter();
          chunks.delta(0, texts[j % texts.length], null, null).appendSse(w);
          w.appendTo(out);
        }
        s += out.length();
        b.release();
      }
      return s;
    }, 64 * 4000, 15);
  }
}
