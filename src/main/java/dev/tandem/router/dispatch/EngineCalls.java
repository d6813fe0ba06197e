package dev.tandem.router.dispatch;

import static dev.tandem.config.RouterOptions.CHUNK_IDLE_TIMEOUT;
import static dev.tandem.config.RouterOptions.FIRST_CHUNK_TIMEOUT;
import static dev.tandem.config.RouterOptions.PREP_RECV_TIMEOUT;
import static dev.tandem.config.RouterOptions.REMOTE_SEND_TIMEOUT;
import static dev.tandem.config.RouterOptions.REQUEST_TOKEN_IDS;
import static dev.tandem.config.RouterOptions.RETRY_AFTER_SECONDS;
import static dev.tandem.config.RouterOptions.START_GENERATE_TIMEOUT;

import dev.tandem.bus.EngineRole;
import dev.tandem.bus.EngineState;
import dev.tandem.bus.EngineStatus;
import dev.tandem.router.metrics.RouterMetrics;
import dev.tandem.config.RouterOptions;
import dev.tandem.router.policy.CacheAwarePolicy;
import dev.tandem.router.policy.EngineSnapshot;
import dev.tandem.router.policy.PdSplitPolicy;
import dev.tandem.router.policy.PrefillBacklog;
import dev.tandem.router.policy.RoutePolicy;
import dev.tandem.router.registry.EngineRegistry;
import dev.tandem.router.registry.InFlightLease;
import dev.tandem.router.upstream.EngineClient;
import dev.tandem.router.upstream.UpstreamException;
import dev.tandem.router.upstream.UsageExtra;
import io.vertx.core.Future;
import java.util.HashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What both dispatchers share: the registry, the policies, the engine client, the options, and
 * the one way to run a streamed generation on an engine and relay it.
 */
final class EngineCalls {

  final EngineRegistry registry;
  final RoutePolicy policy;
  final EngineClient client;
  final RouterOptions options;
  final RouterMetrics metrics;
  final PdSplitPolicy split;
  /** The prompt tokens each prefill engine still has to compute for us, and its rate. */
  final PrefillBacklog backlog = new PrefillBacklog();
  /**
   * What the engine calls read of the options, read once: options are set before a router
   * starts, and four option lookups per request were a quarter of dispatching's time at one
   * connection.
   */
  final boolean requestTokenIds;
  private final long firstChunkMillis;
  private final long startGenerateMillis;
  private final long chunkIdleMillis;
  final long prepRecvMillis;
  final long remoteSendMillis;

  EngineCalls(EngineRegistry registry, RoutePolicy policy, EngineClient client,
      RouterOptions options, RouterMetrics metrics) {
    this(registry, policy, new PdSplitPolicy(PdSplitPolicy.Options.of(PdSplitPolicy.Mode.STATIC,
        options.get(RouterOptions.PD_BALANCE_FACTOR))), client, options, metrics);
  }

  EngineCalls(EngineRegistry registry, RoutePolicy policy, PdSplitPolicy split,
      EngineClient client, RouterOptions options, RouterMetrics metrics) {
    this.registry = registry;
    this.policy = policy;
    this.split = split;
    this.client = client;
    this.options = options;
    this.metrics = metrics;
    this.requestTokenIds = options.get(REQUEST_TOKEN_IDS);
    this.firstChunkMillis = options.get(FIRST_CHUNK_TIMEOUT).toMillis();
    this.startGenerateMillis = options.get(START_GENERATE_TIMEOUT).toMillis();
    this.chunkIdleMillis = options.get(CHUNK_IDLE_TIMEOUT).toMillis();
    this.prepRecvMillis = options.get(PREP_RECV_TIMEOUT).toMillis();
    this.remoteSendMillis = options.get(REMOTE_SEND_TIMEOUT).toMillis();
  }

  /** Counts an engine choice and starts the attempt's routing record. */
  Routing chosen(String role, CacheAwarePolicy.Choice choice) {
    metrics.routeDecision(role, choice.reason());
    metrics.predictedPrefix(choice.predictedMatch());
    return new Routing(policy.kind().wireName(), Routing.Pick.of(role, choice));
  }

  /** What the engine said it found in its prefix cache (debug usage), or -1. */
  static int cachedTokens(UsageExtra usageExtra) {
    return usageExtra == null ? -1 : usageExtra.cachedTokens();
  }

  /**
   * The chosen engine's status. The registry is shared by the router's event loops, so an engine
   * removed on another loop since this attempt's snapshot fails the attempt as unreachable, and
   * the flow tries another engine.
   */
  EngineStatus status(EngineSnapshot snapshot) {
    return registry.status(snapshot.id()).orElseThrow(() -> removed(snapshot.id()));
  }

  /** An in-flight unit of engine {@code id}, or the same failure as {@link #status}. */
  InFlightLease lease(int id) {
    try {
      return registry.lease(id);
    } catch (NoSuchElementException e) {
      throw removed(id);
    }
  }

  private static UpstreamException removed(int id) {
    return UpstreamException.unreachable(id, "routing",
        new NoSuchElementException("it was removed from the fleet"));
  }

  /**
   * Engines that cannot ship KV to {@code decode} now: those of another world (another epoch, or
   * none), and every other engine while {@code decode}'s world is fixed and broken (one of its
   * members is not READY: NVSHMEM does not survive a lost member; the supervisor re-forms the
   * world, and until then decode engines prefill alone).
   */
  Set<Integer> cannotSendTo(EngineStatus decode) {
    EngineStatus.World world = decode.world();
    Set<Integer> out = new HashSet<>();
    if (world == null) {
      return out; // no world known: the engines answer for themselves
    }
    List<EngineStatus> all = registry.statuses();
    boolean broken = world.fixed() && all.stream().anyMatch(e -> e.world() != null
        && e.world().epoch() == world.epoch() && e.state() != EngineState.READY);
    for (EngineStatus e : all) {
      if (broken || e.world() == null || e.world().epoch() != world.epoch()) {
        out.add(e.id());
      }
    }
    return out;
  }

  /**
   * No READY engine for {@code what}; {@code fits} tells which roles could serve, so that the
   * failure says whether one of those is on its way back (a request then waits for it). An
   * UNHEALTHY engine may hang for good; only one starting or restarting counts.
   */
  NoEngineAvailableException noEngine(String what, Predicate<EngineRole> fits) {
    boolean recovering = registry.statuses().stream().anyMatch(s -> fits.test(s.role())
        && (s.state() == EngineState.STARTING || s.state() == EngineState.RESTARTING));
    return new NoEngineAvailableException("no " + what + " engine is ready; "
        + registry.statuses().size() + " known, " + registry.ready().size() + " ready"
        + (recovering ? ", some restarting" : ""), options.get(RETRY_AFTER_SECONDS), recovering);
  }

  /**
   * Streams a generation from {@code engine} into the attempt's flow.
   *
   * @param onOpened runs once the engine accepted the request (2xx head), before any chunk
   */
  Future<Void> generate(Attempt a, EngineStatus engine, String path, EngineBody body,
      Runnable onOpened) {
    long firstChunk = path.equals(EngineApi.START_GENERATE) ? startGenerateMillis
        : firstChunkMillis;
    return client.openStream(engine.id(), engine.url(), path, body.toBuffer(), path, firstChunk,
            chunkIdleMillis, a.cancellation())
        .compose(stream -> {
          onOpened.run();
          return ChunkRelay.relay(a, stream);
        });
  }
}
