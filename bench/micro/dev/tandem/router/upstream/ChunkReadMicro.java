package dev.tandem.router.upstream;

import dev.tandem.api.SseParser;
import dev.tandem.bench.micro.Timing;
import java.util.List;

/**
 * An engine stream's chunks read by the full scanner and by the reader that compares shapes, the
 * latter into a sink as EngineStream feeds the relay (per-token chunks as their fields).
 */
public final class ChunkReadMicro {

  private ChunkReadMicro() {}

  /** Takes what it is given as the relay does: tokens by their fields, other chunks whole. */
  private static final class Counting implements ChunkSink {
    long sum;

    @Override
    public void accept(EngineChunk chunk) {
      sum += chunk.choices().size();
    }

    @Override
    public void token(int index, String text, String finishReason, int[] tokenIds) {
      sum += 1 + text.length();
    }
  }

  /** One data line as EngineStream reads it. */
  private static void read(ChunkShape reader, byte[] b, int o, int n, Counting sink) {
    if (!reader.tokenTo(b, o, n, sink)) {
      sink.accept(reader.scan(b, o, n));
    }
  }

  /** ns per chunk over {@code chunks} (one stream's data lines): full scan, then ChunkShape. */
  public static double[] fullThenShape(List<byte[]> chunks) {
    double full = Timing.nsPerOp(count -> {
      long s = 0;
      for (int k = 0; k < count; k++) {
        byte[] c = chunks.get(k % chunks.size());
        s += EngineChunk.parse(c, 0, c.length).choices().size();
      }
      return s;
    }, 200_000, 15);
    double shape = Timing.nsPerOp(count -> {
      Counting sink = new Counting();
      ChunkShape reader = new ChunkShape();
      for (int k = 0; k < count; k++) {
        if (k % chunks.size() == 0) {
          reader = new ChunkShape(); // a new stream
        }
        byte[] c = chunks.get(k % chunks.size());
        read(reader, c, 0, c.length, sink);
      }
      return sink.sum;
    }, 200_000, 15);
    return new double[] {full, shape};
  }

  /**
   * ns per stream over {@code sse} (one engine answer's bytes, one read): its events split by
   * the parser, each chunk then read by ChunkShape; then each read whole by ChunkShape.event
   * before the parser looks for its line ends, as EngineStream does.
   */
  public static double[] splitThenReadVsWhole(byte[] sse) {
    double split = Timing.nsPerOp(count -> {
      Counting sink = new Counting();
      for (int k = 0; k < count; k++) {
        ChunkShape reader = new ChunkShape();
        SseParser parser = new SseParser((b, o, n) -> {
          if (b[o] == '{') {
            read(reader, b, o, n, sink);
          }
        });
        parser.feed(sse, 0, sse.length);
      }
      return sink.sum;
    }, 20_000, 15);
    double whole = Timing.nsPerOp(count -> {
      Counting sink = new Counting();
      for (int k = 0; k < count; k++) {
        ChunkShape reader = new ChunkShape();
        SseParser parser = new SseParser((b, o, n) -> {
          if (b[o] == '{') {
            read(reader, b, o, n, sink);
          }
        }, (b, from, end) -> reader.eventTo(b, from, end, sink));
        parser.feed(sse, 0, sse.length);
      }
      return sink.sum;
    }, 20_000, 15);
    return new double[] {split, whole};
  }
}
