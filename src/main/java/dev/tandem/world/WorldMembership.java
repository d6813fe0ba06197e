package dev.tandem.world;

import dev.tandem.world.WorldProtocol.Registration;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The world root's rules, without I/O: who holds which PEs, when the world is formed, and which
 * member must be told what. {@code L} is the member's connection; results list the messages to send,
 * so that the caller writes them outside its lock.
 */
final class WorldMembership<L> {
  /** The world's size; a formed world that is not fixed grows when a member joins beyond it. */
  private int npes;
  /** As NVSHMEM: once formed, the world admits nobody, not even a member's restarted engine. */
  private final boolean fixed;
  private final Map<String, Member<L>> members = new LinkedHashMap<>();
  private boolean formed;
  private long version;
  private long generations;

  private record Member<L>(String id, PeTable.Entry entry, L link) {}

  /** A message for one member's connection. */
  record Delivery<L>(L link, JsonObject message) {}

  /** A registration that was refused; the message goes back to the engine. */
  static final class Refusal extends Exception {
    Refusal(String message) {
      super(message);
    }
  }

  WorldMembership(int npes) {
    this(npes, false);
  }

  WorldMembership(int npes, boolean fixed) {
    this.npes = npes;
    this.fixed = fixed;
  }

  synchronized int npes() {
    return npes;
  }

  synchronized boolean formed() {
    return formed;
  }

  synchronized PeTable table() {
    List<PeTable.Entry> entries = new ArrayList<>();
    members.values().forEach(m -> entries.add(m.entry()));
    return new PeTable(version, npes, entries);
  }

  /**
   * Adds a member. Its PEs must be inside the world and held by no live member; a dead member's
   * PEs are taken over (that member's engine restarted). Once formed, a world that is not fixed
   * grows: an engine added beyond its PEs (told the larger npes) joins, and every member hears the
   * larger table. Returns who must hear what: everyone the table once the world is formed,
   * everyone the progress before.
   */
  synchronized List<Delivery<L>> register(Registration r, L link) throws Refusal {
    boolean growing = formed && !fixed && r.npes() > npes && r.peStart() >= npes;
    // After formation a world that is not fixed takes engines told a smaller npes (members from
    // before it grew, restarted) and grows for an engine added beyond its PEs.
    boolean admitted = r.npes() == npes || growing || (formed && !fixed && r.npes() < npes);
    if (!admitted) {
      throw new Refusal("npes mismatch: this engine was told npes=" + r.npes() + " but the world has npes=" + npes
          + (formed && !fixed ? " and grows only by engines whose PEs start at or beyond " + npes
              : "; every engine must get the same npes (the sum of all engines' GPU/CPU counts)"));
    }
    int size = growing ? r.npes() : npes;
    if (r.numPes() < 1 || r.peStart() < 0 || r.peStart() + r.numPes() > Math.min(size, r.npes())) {
      throw new Refusal("PEs " + r.peStart() + ".." + (r.peStart() + r.numPes() - 1)
          + " are outside the world's PEs 0.." + (Math.min(size, r.npes()) - 1));
    }
    if (fixed && formed) {
      throw new Refusal("this world is formed and admits no late member (a fixed world, as"
          + " NVSHMEM's): PEs " + r.peStart() + ".." + (r.peStart() + r.numPes() - 1)
          + " cannot join it again; the supervisor re-forms the world with a new uid");
    }
    List<String> replaced = new ArrayList<>();
    for (Member<L> m : members.values()) {
      if (!m.id().equals(r.member()) && m.entry().overlaps(r.peStart(), r.numPes())) {
        if (m.entry().live()) {
          int pe = Math.max(r.peStart(), m.entry().peStart());
          throw new Refusal("duplicate PE " + pe + ": it is already held by the engine whose KV receiver is "
              + m.entry().kvAddress() + " (pe_start=" + m.entry().peStart() + ", num_pes=" + m.entry().numPes()
              + "); were two engines given the same pe_start?");
        }
        replaced.add(m.id());
      }
    }
    replaced.forEach(members::remove);
    npes = size;
    PeTable.Entry entry = new PeTable.Entry(r.peStart(), r.numPes(), r.kvHost(), r.kvPort(), true, ++generations);
    members.remove(r.member());
    members.put(r.member(), new Member<>(r.member(), entry, link));
    version++;
    return announce();
  }

  /** A member's connection closed: before formation its PEs are free again, after it they are marked left. */
  synchronized List<Delivery<L>> leave(String memberId, L link) {
    Member<L> m = members.get(memberId);
    if (m == null || m.link() != link) {
      return List.of(); // already replaced by a newer registration
    }
    if (formed) {
      PeTable.Entry e = m.entry();
      members.put(memberId, new Member<>(memberId,
          new PeTable.Entry(e.peStart(), e.numPes(), e.kvHost(), e.kvPort(), false, e.generation()), link));
    } else {
      members.remove(memberId);
    }
    version++;
    return announce();
  }

  private List<Delivery<L>> announce() {
    PeTable table = table();
    if (!formed && table.complete()) {
      formed = true;
    }
    JsonObject message = formed ? WorldProtocol.table(table) : WorldProtocol.waiting(table);
    List<Delivery<L>> out = new ArrayList<>();
    for (Member<L> m : members.values()) {
      if (m.entry().live()) {
        out.add(new Delivery<>(m.link(), message));
      }
    }
    return out;
  }
}
