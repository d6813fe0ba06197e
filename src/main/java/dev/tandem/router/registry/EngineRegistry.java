package dev.tandem.router.registry;

import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.bus.LoadReport;
import dev.tandem.router.policy.EngineSnapshot;
import dev.tandem.router.policy.LoadGauges;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's table of engines, built only from {@link EngineStatus} events (and one initial
 * fleet snapshot): READY engines are in rotation, every other state is out, and so is an engine an
 * operator drained ({@link #drain}) until it is resumed, whatever its state meanwhile (restarts
 * included); the policies see a drained engine as not ready, so it gets no new request while its
 * in-flight ones finish. Each engine's load
 * comes from the {@link LoadReport}s its EngineVerticle publishes, next to the router's own
 * in-flight counts; a report older than {@link LoadReport#STALE_AFTER_PERIODS} of its periods is
 * ignored. Owned by the router verticle, whose context applies the fleet's events, and read by
 * every one of the router's event loops: each method holds the registry's lock (a request takes
 * it once, for its snapshot), except the two lookups of a request's chosen engine, {@link #status}
 * and {@link #lease}, which read an immutable copy of the id table (republished when an engine is
 * added or removed) and the entry's volatile status; the in-flight counters are atomic, since a
 * lease is released without the lock. The process-gone listeners run under the lock, so they must
 * not call back into the registry.
 */
public final class EngineRegistry {

  private static final Logger LOG = LoggerFactory.getLogger(EngineRegistry.class);

  private final Map<Integer, EngineEntry> entries = new TreeMap<>();
  /** {@link #entries} as of its last added or removed engine, for the lock-free lookups. */
  private volatile Map<Integer, EngineEntry> byId = Map.of();
  private final LongSupplier clockMillis;
  private IntConsumer processGone = id -> { };

  /** @param clockMillis time source for load freshness (System::currentTimeMillis in production) */
  public EngineRegistry(LongSupplier clockMillis) {
    this.clockMillis = clockMillis;
  }

  /**
   * Adds a listener called with an engine's id when the process the router knew is gone
   * (restarted, failed, stopped, moved): whatever that process had cached went with it.
   */
  public synchronized void onProcessGone(IntConsumer listener) {
    IntConsumer before = processGone;
    this.processGone = id -> {
      before.accept(id);
      listener.accept(id);
    };
  }

  /** Applies a status event: the newest event for an engine always wins. */
  public synchronized void apply(EngineStatus status) {
    EngineEntry entry = entries.get(status.id());
    if (entry == null && status.state() == EngineState.STOPPED) {
      return; // a removed engine's last word, or a stopped one we never knew: nothing to route to
    }
    if (entry == null) {
      entries.put(status.id(), new EngineEntry(status));
      byId = Map.copyOf(entries);
      LOG.info("engine {} ({}, {}) is {}", status.id(), status.role(), status.url(), status.state());
      return;
    }
    EngineStatus old = entry.status;
    entry.status = status;
    boolean changed = old.state() != status.state() || old.generation() != status.generation()
        || !old.url().equals(status.url());
    if (changed) {
      // A restarted or unready engine's old load says nothing about the new process.
      entry.forgetLoad();
      if (old.generation() != status.generation() || !old.url().equals(status.url())
          || status.state() == EngineState.FAILED || status.state() == EngineState.STOPPED
          || status.state() == EngineState.RESTARTING) {
        processGone.accept(status.id());
      }
      LOG.info("engine {} ({}) {} -> {} (generation {}){}", status.id(), status.url(), old.state(),
          status.state(), status.generation(),
          status.detail() == null ? "" : ": " + status.detail());
    }
  }

  /**
   * Applies the fleet's answer to the initial query, but only for engines no event has told us
   * about yet: events arrive after we subscribed, so any event is at least as new as the snapshot.
   */
  public synchronized void applySnapshot(List<EngineStatus> statuses) {
    for (EngineStatus s : statuses) {
      if (!entries.containsKey(s.id())) {
        apply(s);
      }
    }
  }

  /** Takes one in-flight unit of engine {@code id}; the caller must release it however it ends. */
  public InFlightLease lease(int id) {
    EngineEntry entry = byId.get(id);
    if (entry == null) {
      throw new NoSuchElementException("no engine " + id);
    }
    return new InFlightLease(id, entry.inFlight);
  }

  public Optional<EngineStatus> status(int id) {
    EngineEntry entry = byId.get(id);
    return entry == null ? Optional.empty() : Optional.of(entry.status);
  }

  public synchronized List<EngineStatus> statuses() {
    List<EngineStatus> out = new ArrayList<>();
    entries.values().forEach(e -> out.add(e.status));
    return out;
  }

  public synchronized int inFlight(int id) {
    EngineEntry entry = entries.get(id);
    return entry == null ? 0 : entry.inFlight.get();
  }

  public synchronized int totalInFlight() {
    return entries.values().stream().mapToInt(e -> e.inFlight.get()).sum();
  }

  /** Engines in rotation (READY and not drained), in id order. */
  public synchronized List<EngineStatus> ready() {
    return entries.values().stream().filter(EngineEntry::inRotation).map(e -> e.status).toList();
  }

  /** Takes engine {@code id} out of rotation (in-flight requests finish); false if unknown. */
  public synchronized boolean drain(int id) {
    return setDrained(id, true);
  }

  /** Puts a drained engine back into rotation (once it is READY); false if unknown. */
  public synchronized boolean resume(int id) {
    return setDrained(id, false);
  }

  public synchronized boolean drained(int id) {
    EngineEntry entry = entries.get(id);
    return entry != null && entry.drained;
  }

  /** Forgets engine {@code id} (removed from the fleet); false if unknown. */
  public synchronized boolean remove(int id) {
    if (entries.remove(id) == null) {
      return false;
    }
    byId = Map.copyOf(entries);
    return true;
  }

  private boolean setDrained(int id, boolean drained) {
    EngineEntry entry = entries.get(id);
    if (entry == null) {
      return false;
    }
    if (entry.drained != drained) {
      entry.drained = drained;
      LOG.info("engine {} ({}) {}", id, entry.status.url(), drained ? "drained: no new requests"
          : "resumed: back in rotation");
    }
    return true;
  }

  /**
   * Applies a load report, if it is about the READY process the router knows (a report of an
   * older generation, or one that overtook the READY status, is dropped; the next one counts).
   */
  public synchronized void applyLoad(LoadReport report) {
    EngineEntry entry = entries.get(report.id());
    if (entry == null || !entry.ready() || entry.status.generation() != report.generation()) {
      return;
    }
    entry.load = report;
    entry.loadAtMillis = clockMillis.getAsLong();
    entry.gauges = report.hasQueue() ? new LoadGauges(orZero(report.running()),
        orZero(report.waiting()), orZero(report.kvPagesFree()), orZero(report.kvPagesTotal()))
        : null;
  }

  /** The last fresh load report of engine {@code id}, or null. */
  public synchronized LoadReport load(int id) {
    EngineEntry entry = entries.get(id);
    return entry == null || !fresh(entry) ? null : entry.load;
  }

  /** Fresh running/waiting/KV gauges of engine {@code id}, or null (none, stale, or MLC). */
  public synchronized LoadGauges gauges(int id) {
    EngineEntry entry = entries.get(id);
    return entry == null ? null : freshGauges(entry);
  }

  /** What the policies see now, in id order. */
  public synchronized List<EngineSnapshot> snapshot() {
    List<EngineSnapshot> out = new ArrayList<>(entries.size());
    for (EngineEntry e : entries.values()) {
      out.add(new EngineSnapshot(e.status.id(), e.status.role(), e.inRotation(), e.inFlight.get(),
          freshGauges(e)));
    }
    return out;
  }

  private LoadGauges freshGauges(EngineEntry e) {
    return fresh(e) ? e.gauges : null;
  }

  private boolean fresh(EngineEntry e) {
    return e.load != null && !e.load.staleAt(e.loadAtMillis, clockMillis.getAsLong());
  }

  private static int orZero(Integer v) {
    return v == null ? 0 : v;
  }

  private static long orZero(Long v) {
    return v == null ? 0 : v;
  }
}
