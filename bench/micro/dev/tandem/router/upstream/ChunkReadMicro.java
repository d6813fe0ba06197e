package dev.tandem.router.upstream;

import dev.tandem.api.SseParser;
import dev.tandem.bench.micro.Timing;
import java.util.List;

/** An engine stream's chunks read by the full scanner and by the reader that compares shapes. */
public final class ChunkReadMicro {

  private ChunkReadMicro() {}

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
      long s = 0;
      ChunkShape reader = new ChunkShape();
      for (int k = 0; k < count; k++) {
        if (k % chunks.size() == 0) {
          reader = new ChunkShape(); // a new stream
        }
        byte[] c = chunks.get(k % chunks.size());
        s += reader.read(c, 0, c.length).choices().size();
      }
      return s;
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
      long[] s = {0};
      for (int k = 0; k < count; k++) {
        ChunkShape reader = new ChunkShape();
        SseParser parser = new SseParser((b, o, n) -> {
          if (b[o] == '{') {
            s[0] += reader.read(b, o, n).choices().size();
          }
        });
        parser.feed(sse, 0, sse.length);
      }
      return s[0];
    }, 20_000, 15);
    double whole = Timing.nsPerOp(count -> {
      long[] s = {0};
      for (int k = 0; k < count; k++) {
        ChunkShape reader = new ChunkShape();
        SseParser parser = new SseParser((b, o, n) -> {
          if (b[o] == '{') {
            s[0] += reader.read(b, o, n).choices().size();
          }
        }, (b, from, end) -> {
          EngineChunk c = reader.event(b, from, end);
          if (c == null) {
            return -1;
          }
          s[0] += c.choices().size();
          return reader.eventLength();
        });
        parser.feed(sse, 0, sse.length);
      }
      return s[0];
    }, 20_000, 15);
    return new double[] {split, whole};
  }
}
