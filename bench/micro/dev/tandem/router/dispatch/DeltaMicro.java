package dev.tandem.router.dispatch;

import dev.tandem.bench.micro.Timing;
import dev.tandem.router.upstream.Cancellation;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.json.JsonObject;

/** A streamed completion delta rendered into a pooled direct buffer, as SseOutput holds them. */
public final class DeltaMicro {

  private DeltaMicro() {}

  /** ns per delta: 64 deltas of {@code texts} per buffer, a buffer per stream. */
  public static double nsPerDelta(String[] texts) {
    ClientChunks chunks = new ClientChunks(new CompletionJob("cmpl-0123456789abcdef0123456789abcd",
        1_796_000_000L, "tiny", new int[] {1}, null, null, 1, 64, true, false, null, 0.0, null,
        new JsonObject(), new Cancellation()));
    return Timing.nsPerOp(count -> {
      long s = 0;
      for (int k = 0; k < count; k += 64) {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(8192);
        Buffer out = BufferInternal.buffer(b);
        for (int j = 0; j < 64; j++) {
          chunks.delta(0, texts[j % texts.length], null, null).appendSse(out);
        }
        s += out.length();
        b.release();
      }
      return s;
    }, 64 * 4000, 15);
  }
}
