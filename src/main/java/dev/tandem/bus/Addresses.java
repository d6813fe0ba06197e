package dev.tandem.bus;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The event-bus addresses of one fleet, all in one place. Every address starts with the fleet's
 * name ({@code --fleet}, default {@value #DEFAULT_FLEET}), so two fleets share one cluster without
 * seeing each other's engines: {@code Addresses.of("blue").completions()} is
 * {@code blue.completions}, and {@link #DEFAULT}'s addresses are {@code tandem.*}. Bodies are JSON
 * so they work on a clustered bus.
 */
public final class Addresses {
  /** The fleet name when none is given: the addresses of a single fleet ({@code tandem.*}). */
  public static final String DEFAULT_FLEET = "tandem";
  /** A fleet name: letters, digits, {@code _ - .}; starting with a letter or digit. */
  public static final Pattern FLEET_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");
  /** The addresses of the default fleet. */
  public static final Addresses DEFAULT = new Addresses(DEFAULT_FLEET);

  private final String fleet;

  private Addresses(String fleet) {
    this.fleet = fleet;
  }

  /** The addresses of fleet {@code fleet}; a name that is not a {@link #FLEET_NAME} is refused. */
  public static Addresses of(String fleet) {
    Objects.requireNonNull(fleet, "fleet");
    if (!FLEET_NAME.matcher(fleet).matches() || fleet.endsWith(".")) {
      throw new IllegalArgumentException("fleet name '" + fleet + "' must be letters, digits, _, -"
          + " or . (not first or last)");
    }
    return fleet.equals(DEFAULT_FLEET) ? DEFAULT : new Addresses(fleet);
  }

  /** The fleet's name, the first part of every address. */
  public String fleet() {
    return fleet;
  }

  /** Published by each EngineVerticle on every state change: {@link EngineStatus#toJson()}. */
  public String engineStatus() {
    return fleet + ".engine.status";
  }

  /**
   * Published by each READY EngineVerticle once per load-report period:
   * {@link LoadReport#toJson()}. The router balances on these and never polls engines itself.
   */
  public String engineLoad() {
    return fleet + ".engine.load";
  }

  /** Request/reply: answers the current status of every engine (supervisor's view). */
  public String fleetQuery() {
    return fleet + ".fleet.query";
  }

  /**
   * Request/reply (supervisor): start one more engine,
   * {@code {"host", "port", "role": "both|prefill|decode", "numGpus"}} (all but {@code port}
   * optional); the reply, once the engine is READY, is its status. In disagg mode the engine joins
   * the builtin KV world with the next PEs. Fails with 409 when the fleet's KV world cannot admit a
   * member (NVSHMEM's, or --fixed-world: a re-form is needed), 400 for a bad body.
   */
  public String fleetAdd() {
    return fleet + ".fleet.add";
  }

  /**
   * Request/reply (supervisor): stop engine {@code {"id"}} and forget it; the reply is its last
   * status. 404 for an unknown engine.
   */
  public String fleetRemove() {
    return fleet + ".fleet.remove";
  }

  /**
   * Request/reply (supervisor): {@code {"secret": ...}}, the fleet's secret that builtin engines
   * beyond loopback require on every call; the fleet's routers ask for it when they start. Any
   * member of the cluster may ask: the cluster is the fleet's trust boundary (docs/cluster.md).
   */
  public String fleetSecret() {
    return fleet + ".fleet.secret";
  }

  /** Request/reply and streaming completions served by the router (BusCompletionsEndpoint). */
  public String completions() {
    return fleet + ".completions";
  }

  /** The same for chat completions: bodies, replies and chunks of /v1/chat/completions. */
  public String chatCompletions() {
    return fleet + ".chat.completions";
  }

  /**
   * Published by every {@code tandem node} of the fleet when it starts, every
   * {@link NodeAnnouncement#PERIOD} after that, and when asked on {@link #nodeQuery()}:
   * {@link NodeAnnouncement#toJson()}. Its silence for {@link NodeAnnouncement#LOST_AFTER} means
   * the node is gone.
   */
  public String nodeAnnounce() {
    return fleet + ".node.announce";
  }

  /**
   * The name of the cluster-wide map (Vert.x shared data) in which every node keeps its
   * {@link NodeAnnouncement}, each entry living {@link NodeAnnouncement#LOST_AFTER}: what a
   * supervisor reads first when it starts, since a new consumer of {@link #nodeAnnounce()} may
   * take a while to be known cluster-wide.
   */
  public String nodeRegistry() {
    return fleet + ".nodes";
  }

  /** Published (any body) by a supervisor that wants every node to announce itself now. */
  public String nodeQuery() {
    return fleet + ".node.query";
  }

  /**
   * Request/reply of node {@code nodeId}: {@code {"action": "start", "spec", "owner",
   * "stopWithOwner"}} runs (or adopts) an engine and answers its READY status;
   * {@code {"action": "stop", "id"}} stops one and answers its last status.
   */
  public String nodeControl(String nodeId) {
    return fleet + ".node." + nodeId + ".control";
  }

  /**
   * Published by each router's supervisor every {@link NodeAnnouncement#PERIOD}:
   * {@code {"owner": id}}. A node stops the engines it runs for an owner that asked for it
   * ({@code --stop-remote-engines}) once that owner is silent for {@link NodeAnnouncement#LOST_AFTER}.
   */
  public String supervisorHeartbeat() {
    return fleet + ".supervisor.heartbeat";
  }

  /** Control address of engine {@code id} (restart, stop). */
  public String engineControl(int id) {
    return fleet + ".engine." + id + ".control";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Addresses a && a.fleet.equals(fleet);
  }

  @Override
  public int hashCode() {
    return fleet.hashCode();
  }

  @Override
  public String toString() {
    return fleet + ".*";
  }
}
