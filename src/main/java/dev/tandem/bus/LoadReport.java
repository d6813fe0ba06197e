package dev.tandem.bus;

import io.vertx.core.json.JsonObject;

/**
 * One engine's load at one moment, as its EngineVerticle read it from the engine and published it
 * on {@link Addresses#engineLoad()}. A gauge the engine does not report is null and absent from the
 * JSON: MLC engines report no running/waiting counts or free KV pages (only cumulative counters),
 * so a router then balances on its own in-flight counts.
 *
 * @param id the engine's id, as in {@link EngineStatus#id()}
 * @param generation the engine process the numbers came from ({@link EngineStatus#generation()})
 * @param running sequences in the running batch, or null when unknown
 * @param waiting sequences waiting for admission, or null when unknown
 * @param kvPagesFree free KV-cache pages, or null when unknown
 * @param kvPagesTotal KV-cache pages in all, or null when unknown
 * @param periodMs how often the engine's reports come: a report older than a few periods is stale
 * @param timestampMillis when the engine was read (the reporter's clock, epoch milliseconds)
 * @param metrics the engine's metrics object as it answered it ({@code /debug/dump_engine_metrics}'s
 *     {@code "metrics"}: MLC's cumulative counters, plus Tandem's gauges for builtin engines)
 */
public record LoadReport(int id, int generation, Integer running, Integer waiting,
    Long kvPagesFree, Long kvPagesTotal, long periodMs, long timestampMillis, JsonObject metrics) {

  /** Reports missing for this many periods mean the engine's load is unknown. */
  public static final int STALE_AFTER_PERIODS = 3;

  public LoadReport {
    if (periodMs <= 0) {
      throw new IllegalArgumentException("a load report's period must be positive, got " + periodMs);
    }
    metrics = metrics == null ? new JsonObject() : metrics;
  }

  /** Whether the engine told its queue (running or waiting); without it only in-flight counts. */
  public boolean hasQueue() {
    return running != null || waiting != null;
  }

  /**
   * Whether a report received at {@code receivedAtMillis} says nothing any more at
   * {@code nowMillis}: {@link #STALE_AFTER_PERIODS} periods passed without a newer one (the
   * engine stopped answering, or its EngineVerticle is gone). Both times on the reader's clock.
   */
  public boolean staleAt(long receivedAtMillis, long nowMillis) {
    return nowMillis - receivedAtMillis > STALE_AFTER_PERIODS * periodMs;
  }

  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("id", id).put("generation", generation);
    putIfKnown(json, "running", running);
    putIfKnown(json, "waiting", waiting);
    putIfKnown(json, "kvPagesFree", kvPagesFree);
    putIfKnown(json, "kvPagesTotal", kvPagesTotal);
    return json.put("periodMs", periodMs).put("timestamp", timestampMillis).put("metrics", metrics);
  }

  /** Reads a report; a required field missing or of the wrong type is an IllegalArgumentException. */
  public static LoadReport fromJson(JsonObject json) {
    String what = "a load report";
    return new LoadReport(BusJson.requiredInt(json, what, "id"), json.getInteger("generation", 0),
        json.getInteger("running"), json.getInteger("waiting"), json.getLong("kvPagesFree"),
        json.getLong("kvPagesTotal"), BusJson.requiredLong(json, what, "periodMs"),
        json.getLong("timestamp", 0L),
        json.getJsonObject("metrics"));
  }

  private static void putIfKnown(JsonObject json, String key, Number value) {
    if (value != null) {
      json.put(key, value);
    }
  }
}
