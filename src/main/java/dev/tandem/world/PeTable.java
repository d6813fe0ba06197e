package dev.tandem.world;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The world root's table of members: which engine holds which PEs and where its KV receiver
 * listens. {@code version} grows with every change, so a member keeps the newest table it saw.
 */
record PeTable(long version, int npes, List<Entry> entries) {

  /** One engine: PEs {@code [peStart, peStart + numPes)}, its KV address, and whether it is joined now. */
  record Entry(int peStart, int numPes, String kvHost, int kvPort, boolean live, long generation) {
    boolean holds(int pe) {
      return pe >= peStart && pe < peStart + numPes;
    }

    boolean overlaps(int start, int count) {
      return start < peStart + numPes && peStart < start + count;
    }

    String kvAddress() {
      return (kvHost.indexOf(':') >= 0 ? "[" + kvHost + "]" : kvHost) + ":" + kvPort;
    }

    JsonObject toJson() {
      return new JsonObject().put("pe_start", peStart).put("num_pes", numPes).put("kv_host", kvHost)
          .put("kv_port", kvPort).put("live", live).put("generation", generation);
    }

    static Entry fromJson(JsonObject j) {
      return new Entry(j.getInteger("pe_start"), j.getInteger("num_pes"), j.getString("kv_host"),
          j.getInteger("kv_port"), j.getBoolean("live", true), j.getLong("generation", 0L));
    }
  }

  PeTable {
    List<Entry> sorted = new ArrayList<>(entries);
    sorted.sort(Comparator.comparingInt(Entry::peStart));
    entries = List.copyOf(sorted);
  }

  Optional<Entry> owner(int pe) {
    return entries.stream().filter(e -> e.holds(pe)).findFirst();
  }

  /** PEs held by live members, ascending. */
  List<Integer> joinedPes() {
    List<Integer> pes = new ArrayList<>();
    for (Entry e : entries) {
      if (e.live()) {
        for (int pe = e.peStart(); pe < e.peStart() + e.numPes(); pe++) {
          pes.add(pe);
        }
      }
    }
    return pes;
  }

  List<Integer> missingPes() {
    List<Integer> joined = joinedPes();
    List<Integer> missing = new ArrayList<>();
    for (int pe = 0; pe < npes; pe++) {
      if (!joined.contains(pe)) {
        missing.add(pe);
      }
    }
    return missing;
  }

  boolean complete() {
    return joinedPes().size() == npes && missingPes().isEmpty();
  }

  JsonObject toJson() {
    JsonArray members = new JsonArray();
    entries.forEach(e -> members.add(e.toJson()));
    return new JsonObject().put("version", version).put("npes", npes).put("members", members);
  }

  static PeTable fromJson(JsonObject j) {
    List<Entry> entries = new ArrayList<>();
    j.getJsonArray("members").forEach(m -> entries.add(Entry.fromJson((JsonObject) m)));
    return new PeTable(j.getLong("version"), j.getInteger("npes"), entries);
  }
}
