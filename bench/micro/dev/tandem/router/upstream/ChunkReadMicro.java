package dev.tandem.router.upstream;

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
}
