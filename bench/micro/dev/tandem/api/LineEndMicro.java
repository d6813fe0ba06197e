package dev.tandem.api;

import dev.tandem.bench.micro.Timing;

/** SseParser's scan for line ends over a whole engine stream, and the parser's whole split. */
public final class LineEndMicro {

  private LineEndMicro() {}

  /** ns per stream: every line end of {@code stream} found; then the stream split into events. */
  public static double[] scanThenSplit(byte[] stream) {
    double scan = Timing.nsPerOp(count -> {
      long s = 0;
      for (int k = 0; k < count; k++) {
        for (int i = SseParser.lineEnd(stream, 0, stream.length); i >= 0;
            i = SseParser.lineEnd(stream, i + 1, stream.length)) {
          s += i;
        }
      }
      return s;
    }, 20_000, 15);
    long[] events = new long[1];
    double split = Timing.nsPerOp(count -> {
      for (int k = 0; k < count; k++) {
        SseParser p = new SseParser((bytes, offset, length) -> events[0] += length);
        p.feed(stream, 0, stream.length);
        p.finish();
      }
      return events[0];
    }, 20_000, 15);
    return new double[] {scan, split};
  }
}
