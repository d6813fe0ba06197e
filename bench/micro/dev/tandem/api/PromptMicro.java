package dev.tandem.api;

import dev.tandem.bench.micro.Timing;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;

/**
 * A completion body's way to its engine body, as the router takes it per request: the client's
 * bytes read ({@link FastJson#parseObject}), the request checked ({@link CompletionRequest}),
 * and an engine body with the prompt's ids written ({@link JsonBytes}) once (round-robin) or
 * three times (what disaggregation's three calls cost when each writes its body whole). The
 * prompt goes out as the router's engine bodies hold it: the ids the client's body was read
 * into, when that is the job's prompt, else a {@link JsonInts} of the checked ids. Written only
 * with what every build since session 13 has, so that one build can be timed against another
 * (bench/request-micro.sh, TANDEM_JAR).
 */
public final class PromptMicro {

  private PromptMicro() {}

  /** ns per request: {read and checked, engine body written once, written three times}. */
  public static double[] nsPerRequest(int promptLen) {
    StringBuilder ids = new StringBuilder();
    for (int i = 0; i < promptLen; i++) {
      ids.append(i == 0 ? "" : ",").append(3 + i % 1000);
    }
    byte[] body = ("{\"prompt\":[" + ids + "],\"max_tokens\":16,\"stream\":true,"
        + "\"stream_options\":{\"include_usage\":true},\"debug_config\":{\"ignore_eos\":true}}")
        .getBytes(StandardCharsets.US_ASCII);
    int count = Math.max(200, 2_000_000 / (promptLen + 50));
    double read = Timing.nsPerOp(n -> {
      long s = 0;
      for (int k = 0; k < n; k++) {
        s += CompletionRequest.parse(FastJson.parseObject(Buffer.buffer(body))).prompt()
            .tokenIds().length;
      }
      return s;
    }, count, 15);
    double[] written = new double[2];
    for (int times : new int[] {1, 3}) {
      written[times == 1 ? 0 : 1] = Timing.nsPerOp(n -> {
        long s = 0;
        for (int k = 0; k < n; k++) {
          JsonObject client = FastJson.parseObject(Buffer.buffer(body));
          int[] checked = CompletionRequest.parse(client).prompt().tokenIds();
          Object held = client.getMap().get("prompt");
          Object prompt = held instanceof JsonInts j && j.ids() == checked ? j : new JsonInts(checked);
          for (int t = 0; t < times; t++) {
            JsonObject engine = new JsonObject().put("max_tokens", 16).put("stream", true)
                .put("prompt", prompt).put("user", "cmpl-0-1");
            s += FastJson.toBuffer(engine).length();
          }
        }
        return s;
      }, count, 15);
    }
    return new double[] {read, written[0], written[1]};
  }
}
