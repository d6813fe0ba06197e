package dev.tandem.bench.micro;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.core.io.NumberInput;
import com.fasterxml.jackson.core.io.NumberOutput;
import dev.tandem.api.LineEndMicro;
import dev.tandem.router.dispatch.DeltaMicro;
import dev.tandem.router.upstream.ChunkReadMicro;
import dev.tandem.router.upstream.EngineChunk;
import dev.tandem.router.upstream.UsageExtra;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The router's per-token steps in isolation (bench/relay-micro.sh): an engine chunk read, a
 * client delta rendered, the SSE split, a stream's events split then read or read whole, and
 * the doubles of a usage record. Prints a table.
 */
public final class RelayMicro {

  private static final String[] TEXTS = {" the", " router", ",", " Hello", " \u00e9t\u00e9", "\n",
      " \"quoted\"", " 42", " streams", "."};
  /** The null engine's chunk (`tandem bench null-engine`), and the builtin engine's with ids. */
  private static final String NULL_ENGINE = "{\"id\":\"cmpl-null\",\"choices\":[{\"finish_reason\""
      + ":null,\"index\":0,\"logprobs\":null,\"text\":%s}],\"created\":0,\"model\":null,"
      + "\"object\":\"text_completion\",\"usage\":null}";
  private static final String WITH_IDS = "{\"id\":\"cmpl-7f3a\",\"choices\":[{\"finish_reason\":"
      + "null,\"index\":0,\"logprobs\":null,\"text\":%s,\"token_ids\":[%d]}],\"created\":"
      + "1796000000,\"model\":\"tiny\",\"object\":\"text_completion\",\"usage\":null}";

  /** The null engine's last chunk: usage with its two timings (as NullEngineServer writes it). */
  private static final String USAGE = "{\"id\":\"cmpl-null\",\"choices\":[],\"created\":0,"
      + "\"model\":null,\"object\":\"text_completion\",\"usage\":{\"prompt_tokens\":32,"
      + "\"completion_tokens\":16,\"total_tokens\":48,\"extra\":{\"ttft_s\":1.2345E-5,"
      + "\"end_to_end_latency_s\":3.4567E-5}}}";

  /** An MLC engine's last chunk behind a router (--enable-debug): RequestMetrics' ten values. */
  private static final String USAGE_MLC = "{\"id\":\"cmpl-0\",\"choices\":[],\"created\":1733,"
      + "\"model\":\"m\",\"object\":\"text_completion\",\"usage\":{\"prompt_tokens\":32,"
      + "\"completion_tokens\":16,\"total_tokens\":48,\"extra\":{\"prompt_tokens\":32,"
      + "\"completion_tokens\":16,\"prefill_tokens\":32,\"decode_tokens\":15,"
      + "\"jump_forward_tokens\":0,\"prefill_tokens_per_s\":4532.812345678901,"
      + "\"decode_tokens_per_s\":87.10293847561234,\"end_to_end_latency_s\":0.17926354,"
      + "\"ttft_s\":0.007059655,\"inter_token_latency_s\":0.01120397125}}}";

  private RelayMicro() {}

  public static void main(String[] args) {
    int tokens = args.length > 0 ? Integer.parseInt(args[0]) : 64;
    System.out.printf("# %d-token streams; median of 15 rounds after 15 warm-up rounds; %s %s%n",
        tokens, System.getProperty("java.vm.name"), System.getProperty("java.version"));
    System.out.println("| step | ns |");
    System.out.println("|---|---:|");
    for (String[] shape : new String[][] {{"null engine", NULL_ENGINE}, {"with ids", WITH_IDS}}) {
      List<byte[]> chunks = chunks(shape[1], tokens);
      double[] r = ChunkReadMicro.fullThenShape(chunks);
      row("engine chunk read, full scan (" + shape[0] + ")", r[0]);
      row("engine chunk read, compared with the last (" + shape[0] + ")", r[1]);
    }
    for (String[] record : new String[][] {
        {"null engine's", USAGE, "usage record read (the stream's last chunk, EngineChunk.parse)"},
        {"MLC's", USAGE_MLC, "usage record read (MLC's ten metrics, EngineChunk.parse)"}}) {
      byte[] last = record[1].getBytes(StandardCharsets.UTF_8);
      row(record[2], Timing.nsPerOp(count -> {
        long s = 0;
        for (int k = 0; k < count; k++) {
          s += EngineChunk.parse(last, 0, last.length).completionTokens();
        }
        return s;
      }, 200_000, 15));
      UsageExtra extra = EngineChunk.parse(last, 0, last.length).usageExtra();
      row("usage chunk rendered, " + record[0] + " record spliced as its bytes",
          DeltaMicro.nsPerUsageChunk(extra));
      row("usage chunk rendered, " + record[0] + " record written from its JsonObject",
          DeltaMicro.nsPerUsageChunk(UsageExtra.of(extra.json().copy())));
    }
    row("client delta rendered, appended to the stream's direct buffer each (sessions 11-12)",
        DeltaMicro.nsPerDeltaAppendedEach(TEXTS));
    row("client delta rendered into the loop's heap writer, copied once per stream",
        DeltaMicro.nsPerDelta(TEXTS));
    double[] sse = LineEndMicro.scanThenSplit(stream(chunks(NULL_ENGINE, tokens)));
    row("line ends of a whole stream found (per stream)", sse[0]);
    row("a whole stream split into events (per stream)", sse[1]);
    for (String[] shape : new String[][] {{"null engine", NULL_ENGINE}, {"with ids", WITH_IDS}}) {
      double[] r = ChunkReadMicro.splitThenReadVsWhole(stream(chunks(shape[1], tokens)));
      row("a whole stream split, then each chunk read (" + shape[0] + ", per stream)", r[0]);
      row("a whole stream's chunks read as whole events (" + shape[0] + ", per stream)", r[1]);
    }
    double[] values = timings(1024);
    String[] texts = new String[values.length];
    for (int i = 0; i < values.length; i++) {
      texts[i] = Double.toString(values[i]);
    }
    row("double written, Double.toString", Timing.nsPerOp(count -> {
      long s = 0;
      for (int k = 0; k < count; k++) {
        s += Double.toString(values[k & 1023]).length();
      }
      return s;
    }, 200_000, 15));
    row("double written, Jackson's NumberOutput (Schubfach)", Timing.nsPerOp(count -> {
      long s = 0;
      for (int k = 0; k < count; k++) {
        s += NumberOutput.toString(values[k & 1023], true).length();
      }
      return s;
    }, 200_000, 15));
    row("double read, Double.parseDouble", Timing.nsPerOp(count -> {
      double s = 0;
      for (int k = 0; k < count; k++) {
        s += Double.parseDouble(texts[k & 1023]);
      }
      return (long) s;
    }, 200_000, 15));
    row("double read, Jackson's NumberInput (FastDoubleParser)", Timing.nsPerOp(count -> {
      double s = 0;
      for (int k = 0; k < count; k++) {
        s += NumberInput.parseDouble(texts[k & 1023], true);
      }
      return (long) s;
    }, 200_000, 15));
    System.out.println("(sink " + (Timing.sink() & 0xff) + ")");
  }

  private static void row(String step, double ns) {
    System.out.printf("| %s | %.1f |%n", step, ns);
  }

  /** One stream's per-token data lines, texts cycling, the token id counting up. */
  private static List<byte[]> chunks(String shape, int tokens) {
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < tokens; i++) {
      String text = '"' + new String(JsonStringEncoder.getInstance()
          .quoteAsString(TEXTS[i % TEXTS.length])) + '"';
      out.add(String.format(shape, text, 1000 + i).getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  /** The chunks as the SSE body an engine sends, with its [DONE]. */
  private static byte[] stream(List<byte[]> chunks) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] c : chunks) {
      out.writeBytes("data: ".getBytes(StandardCharsets.US_ASCII));
      out.writeBytes(c);
      out.writeBytes("\n\n".getBytes(StandardCharsets.US_ASCII));
    }
    out.writeBytes("data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII));
    return out.toByteArray();
  }

  /** Latencies in seconds as engines report them (ttft_s and the like: 1e-4 to 10). */
  private static double[] timings(int n) {
    Random r = new Random(3);
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = Math.pow(10, -4 + 5 * r.nextDouble());
    }
    return v;
  }
}
