package dev.tandem.router.dispatch;

import dev.tandem.api.JsonBytes;
import dev.tandem.router.policy.CacheAwarePolicy;
import dev.tandem.router.policy.PdSplitPolicy;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;

/**
 * How a dispatcher chose the engines of one attempt: the route policy, the engine that served the
 * request whole or decoded it, and in disaggregated mode the P/D split's decision and the prefill
 * engine. The answer's debug usage shows it ({@code usage.extra.routing}); the request's clock
 * takes the serving engine from it. One attempt's record is made per request, so it is a plain
 * object written straight as JSON bytes at a stream's end ({@link #write}); {@link #toJson} is the
 * same record as a JsonObject (same keys, same order) for whole answers and the bus.
 */
public final class Routing {

  private static final byte[] POLICY = bytes("{\"policy\":");
  private static final byte[] ENGINE = bytes(":{\"engine\":");
  private static final byte[] REASON = bytes(",\"reason\":");
  private static final byte[] PREDICTED = bytes(",\"predicted_prefix_tokens\":");
  private static final byte[] LOAD = bytes(",\"load\":");
  private static final byte[] PD = bytes(",\"pd\":{\"policy\":");
  private static final byte[] DECISION = bytes(",\"decision\":");
  private static final byte[] BALANCE_FACTOR = bytes(",\"balance_factor\":");
  private static final byte[] WHY = bytes(",\"why\":");
  private static final byte[] END_OBJECT = {'}'};
  private static final byte[] COMMA = {','};

  /** One engine pick: the role it was picked for, its id, why, its predicted prefix, its load. */
  record Pick(String role, int engine, CacheAwarePolicy.Reason reason, int predictedPrefixTokens,
      long load) {

    static Pick of(String role, CacheAwarePolicy.Choice choice) {
      return new Pick(role, choice.engine().id(), choice.reason(), choice.predictedMatch(),
          choice.engine().score());
    }

    JsonObject toJson() {
      return new JsonObject().put("engine", engine).put("reason", reason.label())
          .put("predicted_prefix_tokens", predictedPrefixTokens).put("load", load);
    }

    void write(JsonBytes w) {
      w.value(role);
      w.raw(ENGINE).number(engine).raw(REASON);
      w.value(reason.label());
      w.raw(PREDICTED).number(predictedPrefixTokens).raw(LOAD).number(load).raw(END_OBJECT);
    }
  }

  private final String policy;
  private final Pick served;
  private String splitPolicy;
  private PdSplitPolicy.Decision split;
  private Pick prefill;

  /**
   * @param policy the route policy's wire name
   * @param served the engine picked for the whole request ({@code "whole"}) or to decode it
   */
  Routing(String policy, Pick served) {
    this.policy = policy;
    this.served = served;
  }

  /** The P/D split's decision, under split policy {@code splitPolicy} (static or adaptive). */
  void split(String splitPolicy, PdSplitPolicy.Decision decision) {
    this.splitPolicy = splitPolicy;
    this.split = decision;
  }

  void prefill(Pick pick) {
    this.prefill = pick;
  }

  /** The engine that streamed the answer: the whole-request or decode engine. */
  public int servingEngine() {
    return served.engine();
  }

  public JsonObject toJson() {
    JsonObject out = new JsonObject().put("policy", policy).put(served.role(), served.toJson());
    if (split != null) {
      out.put("pd", new JsonObject().put("policy", splitPolicy)
          .put("decision", split.kind().label()).put("balance_factor", split.balanceFactor())
          .put("why", split.why()));
    }
    if (prefill != null) {
      out.put(prefill.role(), prefill.toJson());
    }
    return out;
  }

  /**
   * Writes {@link #toJson()}'s bytes; false (what was written is to be dropped) where a string
   * needs the general encoder (a lone surrogate; the policies' labels never hold one).
   */
  boolean write(JsonBytes w) {
    w.raw(POLICY);
    if (!w.value(policy)) {
      return false;
    }
    w.raw(COMMA);
    served.write(w);
    if (split != null) {
      w.raw(PD);
      if (!w.value(splitPolicy)) {
        return false;
      }
      w.raw(DECISION);
      w.value(split.kind().label());
      w.raw(BALANCE_FACTOR);
      if (!w.value(split.balanceFactor()) || !w.raw(WHY).value(split.why())) {
        return false;
      }
      w.raw(END_OBJECT);
    }
    if (prefill != null) {
      w.raw(COMMA);
      prefill.write(w);
    }
    w.raw(END_OBJECT);
    return true;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
