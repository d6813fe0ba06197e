package dev.tandem.router.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Chooses engines for one request attempt: a whole-request engine (round-robin mode), a decode
 * engine D and a prefill engine P (disaggregated mode). Only READY engines of a fitting role are
 * candidates, minus those excluded (engines that already failed this request, or D itself when
 * choosing P). With {@link Kind#CACHE_AWARE} the prompt's predicted prefix-cache hit decides
 * within SGLang's balance thresholds ({@link CacheAwarePolicy}); with {@link Kind#LEAST_LOADED}
 * the load alone. Each role keeps its own rotation and trees. Shared by the router's event loops:
 * every public method holds the policy's lock (the rotations and prefix trees are plain
 * collections), so a choice and the trees it reads are one consistent step.
 */
public final class RoutePolicy {

  public enum Kind {
    LEAST_LOADED("least-loaded"), CACHE_AWARE("cache-aware");

    private final String wireName;

    Kind(String wireName) {
      this.wireName = wireName;
    }

    /** The kind whose wire name is {@code s}, in any case. */
    public static Kind parse(String s) {
      String name = s.toLowerCase(Locale.ROOT);
      for (Kind k : values()) {
        if (k.wireName.equals(name)) {
          return k;
        }
      }
      throw new IllegalArgumentException(
          "policy must be cache-aware or least-loaded, not '" + s + "'");
    }

    /** The name on the wire and the command line (each request's routing record holds it). */
    public String wireName() {
      return wireName;
    }
  }

  private final Kind kind;
  private final LeastLoadedPolicy whole = new LeastLoadedPolicy();
  private final LeastLoadedPolicy decode = new LeastLoadedPolicy();
  private final LeastLoadedPolicy prefill = new LeastLoadedPolicy();
  private final CacheAwarePolicy wholeCache;
  private final CacheAwarePolicy decodeCache;
  private final CacheAwarePolicy prefillCache;

  public RoutePolicy() {
    this(Kind.LEAST_LOADED, CacheAwarePolicy.Options.defaults());
  }

  public RoutePolicy(Kind kind, CacheAwarePolicy.Options cacheOptions) {
    this.kind = kind;
    wholeCache = new CacheAwarePolicy(cacheOptions);
    decodeCache = new CacheAwarePolicy(cacheOptions);
    prefillCache = new CacheAwarePolicy(cacheOptions);
  }

  public Kind kind() {
    return kind;
  }

  /** Any READY engine, whatever its role: MLC's round-robin mode uses every endpoint. */
  public synchronized Optional<EngineSnapshot> pickWhole(List<EngineSnapshot> engines,
      Set<Integer> excluded) {
    return whole.pick(wholeCandidates(engines, excluded));
  }

  /** A READY engine that can decode (role DECODE or BOTH). */
  public synchronized Optional<EngineSnapshot> pickDecode(List<EngineSnapshot> engines,
      Set<Integer> excluded) {
    return decode.pick(decodeCandidates(engines, excluded));
  }

  /** A READY engine that can prefill (role PREFILL or BOTH); pass D's id in {@code excluded}. */
  public synchronized Optional<EngineSnapshot> pickPrefill(List<EngineSnapshot> engines,
      Set<Integer> excluded) {
    return prefill.pick(prefillCandidates(engines, excluded));
  }

  /** The whole-request engine for {@code prompt}, with the reason and the predicted cache hit. */
  public synchronized Optional<CacheAwarePolicy.Choice> chooseWhole(List<EngineSnapshot> engines,
      Set<Integer> excluded, int[] prompt) {
    return choose(wholeCandidates(engines, excluded), whole, wholeCache, prompt);
  }

  public synchronized Optional<CacheAwarePolicy.Choice> chooseDecode(List<EngineSnapshot> engines,
      Set<Integer> excluded, int[] prompt) {
    return choose(decodeCandidates(engines, excluded), decode, decodeCache, prompt);
  }

  public synchronized Optional<CacheAwarePolicy.Choice> choosePrefill(List<EngineSnapshot> engines,
      Set<Integer> excluded, int[] prompt) {
    return choose(prefillCandidates(engines, excluded), prefill, prefillCache, prompt);
  }

  /** The shortest queue among the engines that could prefill now, or -1 if there are none. */
  public synchronized long prefillQueue(List<EngineSnapshot> engines, Set<Integer> excluded) {
    return prefillCandidates(engines, excluded).stream().mapToLong(EngineSnapshot::score).min()
        .orElse(-1);
  }

  /**
   * How long the least busy prefill engine that could take a request now would need for its
   * backlog plus {@code tokens} ({@link PrefillBacklog#waitMillis}); NaN while one of them has no
   * measured rate, or there are none.
   */
  public synchronized double prefillWaitMillis(List<EngineSnapshot> engines, Set<Integer> excluded,
      PrefillBacklog backlog, int tokens) {
    double best = Double.NaN;
    for (EngineSnapshot e : prefillCandidates(engines, excluded)) {
      double w = backlog.waitMillis(e.id(), tokens);
      if (Double.isNaN(w)) {
        return Double.NaN;
      }
      best = Double.isNaN(best) ? w : Math.min(best, w);
    }
    return best;
  }

  /** An engine's report of how much of a prompt it found cached (whole or decode role). */
  public synchronized void observed(int engineId, int[] prompt, int cachedTokens,
      boolean decodeRole) {
    (decodeRole ? decodeCache : wholeCache).observed(engineId, prompt, cachedTokens);
  }

  /** An engine's process changed (restart, failure): forget what its cache held. */
  public synchronized void forget(int engineId) {
    wholeCache.forget(engineId);
    decodeCache.forget(engineId);
    prefillCache.forget(engineId);
  }

  private Optional<CacheAwarePolicy.Choice> choose(List<EngineSnapshot> candidates,
      LeastLoadedPolicy leastLoaded, CacheAwarePolicy cacheAware, int[] prompt) {
    if (kind == Kind.CACHE_AWARE) {
      return cacheAware.pick(candidates, prompt);
    }
    return leastLoaded.pick(candidates)
        .map(e -> new CacheAwarePolicy.Choice(e, 0, CacheAwarePolicy.Reason.LEAST_LOADED));
  }

  private static List<EngineSnapshot> wholeCandidates(List<EngineSnapshot> engines,
      Set<Integer> excluded) {
    return candidates(engines, excluded, e -> true);
  }

  private static List<EngineSnapshot> decodeCandidates(List<EngineSnapshot> engines,
      Set<Integer> excluded) {
    return candidates(engines, excluded, e -> e.role().canDecode());
  }

  private static List<EngineSnapshot> prefillCandidates(List<EngineSnapshot> engines,
      Set<Integer> excluded) {
    return candidates(engines, excluded, e -> e.role().canPrefill());
  }

  /** The READY engines of {@code role} not in {@code excluded} (a loop: this runs per request). */
  private static List<EngineSnapshot> candidates(List<EngineSnapshot> engines,
      Set<Integer> excluded, Predicate<EngineSnapshot> role) {
    List<EngineSnapshot> out = new ArrayList<>(engines.size());
    for (int i = 0, n = engines.size(); i < n; i++) {
      EngineSnapshot e = engines.get(i);
      if (e.ready() && role.test(e) && !excluded.contains(e.id())) {
        out.add(e);
      }
    }
    return out;
  }
}
