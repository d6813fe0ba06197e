package dev.tandem.router.policy;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Cache-aware choice among engines of one role, after SGLang's router ({@code cache_aware}): the
 * router keeps a {@link PrefixTree} per engine of what it sent there, and
 *
 * <ol>
 *   <li>if the load is imbalanced — {@code max - min > balanceAbs} and {@code max > balanceRel *
 *       min}, loads being {@link EngineSnapshot#score()} — it picks the least-loaded engine;
 *   <li>else the engine with the longest predicted prefix match, if that match is more than
 *       {@code cacheThreshold} of the prompt (ties: the lower load);
 *   <li>else the least-loaded engine (SGLang picks the smallest tree here; the least-loaded one
 *       spreads new prefixes the same way and also weighs running work).
 * </ol>
 *
 * The chosen engine's tree then gets the prompt. Engine reports correct the trees
 * ({@link #observed}). Pure logic, no I/O; not thread-safe: {@link RoutePolicy} holds its lock.
 */
public final class CacheAwarePolicy {

  /** Default thresholds: SGLang router's (cache 0.5, balance 64 requests and 1.5x). */
  public static final double DEFAULT_CACHE_THRESHOLD = 0.5;
  public static final int DEFAULT_BALANCE_ABS = 64;
  public static final double DEFAULT_BALANCE_REL = 1.5;
  /** Tree size for an engine that has not reported its KV capacity (MLC engines). */
  public static final int DEFAULT_CAPACITY_PAGES = 1 << 16;

  /** Why an engine was chosen: counted in metrics and shown in the debug usage. */
  public enum Reason {
    PREFIX("prefix"), BALANCE("balance"), NO_PREFIX("no-prefix"), LEAST_LOADED("least-loaded");

    private final String label;

    Reason(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  public record Options(double cacheThreshold, int balanceAbs, double balanceRel) {
    public static Options defaults() {
      return new Options(DEFAULT_CACHE_THRESHOLD, DEFAULT_BALANCE_ABS, DEFAULT_BALANCE_REL);
    }
  }

  /** The pick, with the prefix the router expects the engine to have cached. */
  public record Choice(EngineSnapshot engine, int predictedMatch, Reason reason) {}

  private final Options options;
  private final Map<Integer, PrefixTree> trees = new HashMap<>();
  private final LeastLoadedPolicy leastLoaded = new LeastLoadedPolicy();

  public CacheAwarePolicy(Options options) {
    this.options = options;
  }

  public Optional<Choice> pick(Collection<EngineSnapshot> candidates, int[] prompt) {
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (EngineSnapshot c : candidates) {
      min = Math.min(min, c.score());
      max = Math.max(max, c.score());
    }
    Choice choice;
    if (max - min > options.balanceAbs() && max > options.balanceRel() * min) {
      EngineSnapshot e = leastLoaded.pick(candidates).orElseThrow();
      choice = new Choice(e, tree(e).match(prompt), Reason.BALANCE);
    } else {
      EngineSnapshot best = null;
      int bestMatch = -1;
      for (EngineSnapshot c : candidates) {
        int m = tree(c).match(prompt);
        if (m > bestMatch || (m == bestMatch && c.score() < best.score())) {
          best = c;
          bestMatch = m;
        }
      }
      if (bestMatch > options.cacheThreshold() * prompt.length) {
        choice = new Choice(best, bestMatch, Reason.PREFIX);
      } else {
        EngineSnapshot e = leastLoaded.pick(candidates).orElseThrow();
        choice = new Choice(e, tree(e).match(prompt), Reason.NO_PREFIX);
      }
    }
    tree(choice.engine()).insert(prompt);
    return Optional.of(choice);
  }

  /** Tokens of {@code prompt} the router expects engine {@code id} to have cached. */
  public int predictedMatch(int id, int[] prompt) {
    PrefixTree t = trees.get(id);
    return t == null ? 0 : t.match(prompt);
  }

  /** The prompt was sent to engine {@code id} by another path (e.g. P of a disaggregation). */
  public void sent(int id, int[] prompt) {
    PrefixTree t = trees.get(id);
    if (t != null) {
      t.insert(prompt);
    }
  }

  /** Engine {@code id} reported {@code cachedTokens} of {@code prompt} as found in its cache. */
  public void observed(int id, int[] prompt, int cachedTokens) {
    PrefixTree t = trees.get(id);
    if (t != null) {
      t.correct(prompt, cachedTokens);
    }
  }

  /** An engine restarted or left: its cache is gone. */
  public void forget(int id) {
    trees.remove(id);
  }

  /** Pages the router believes engine {@code id} holds (for tests and the admin view). */
  public int treePages(int id) {
    PrefixTree t = trees.get(id);
    return t == null ? 0 : t.size();
  }

  private PrefixTree tree(EngineSnapshot e) {
    PrefixTree t = trees.computeIfAbsent(e.id(), id -> new PrefixTree(DEFAULT_CAPACITY_PAGES));
    if (e.gauges() != null && e.gauges().totalKvPages() > 0) {
      t.capacity((int) Math.min(Integer.MAX_VALUE, e.gauges().totalKvPages()));
    }
    return t;
  }
}
