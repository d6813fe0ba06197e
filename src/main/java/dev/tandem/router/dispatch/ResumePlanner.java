package dev.tandem.router.dispatch;

import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;

/**
 * Plans the resumption of choices an engine did not finish, so that a client never sees text
 * twice (MLC restarts from scratch and streams the duplicate, reference §6 item 2):
 *
 * <ul>
 *   <li><b>continue</b>: a new n=1 attempt per choice whose prompt is the original prompt plus the
 *       tokens already delivered, with the remaining budget. Exact for greedy decoding when the
 *       engine reported the token ids (batch-invariant engines compute the same logits).
 *   <li><b>replay</b>: the original request again (same n, seed), cutting from each choice what was
 *       already delivered and dropping finished choices. Exact whenever the engine is
 *       deterministic: greedy, or sampling with a seed (continuing would shift the seeded random
 *       stream), and with penalties, which depend on which tokens count as generated.
 * </ul>
 *
 * Unseeded sampling without token ids continues from the delivered text re-tokenized: no repeat,
 * though the split into tokens may differ from the engine's. Known limit of continuing: a stop
 * string that spans the resume point is not detected.
 */
final class ResumePlanner {

  enum Mode { CONTINUE, REPLAY }

  private final Function<String, Future<int[]>> encoder;

  /** @param encoder tokenizes text off the event loop; null when no tokenizer is at hand */
  ResumePlanner(Function<String, Future<int[]>> encoder) {
    this.encoder = encoder;
  }

  static Mode mode(CompletionJob job, boolean idsComplete, boolean canTokenize) {
    boolean exactReplay = job.greedy() || job.seededSampling();
    if (job.seededSampling() || (job.penalties() && exactReplay)) {
      return Mode.REPLAY;
    }
    if (idsComplete) {
      return Mode.CONTINUE;
    }
    return job.greedy() || !canTokenize ? Mode.REPLAY : Mode.CONTINUE;
  }

  Future<ResumePlan> plan(CompletionJob job, ChoiceLedger ledger, Collection<Integer> choices) {
    boolean idsComplete = choices.stream().allMatch(i -> ledger.get(i).idsComplete);
    if (mode(job, idsComplete, encoder != null) == Mode.REPLAY) {
      return Future.succeededFuture(replay(job, ledger, choices));
    }
    List<Integer> exhausted = new ArrayList<>();
    List<Future<AttemptSpec>> specs = new ArrayList<>();
    for (int i : choices) {
      ChoiceLedger.Choice c = ledger.get(i);
      Future<int[]> ids = c.idsComplete ? Future.succeededFuture(c.tokenIds())
          : encoder.apply(c.text.toString());
      Integer remaining = null;
      if (job.maxTokens() != null) {
        remaining = job.maxTokens() - c.tokens;
        if (remaining <= 0) {
          exhausted.add(i);
          continue;
        }
      }
      Integer budget = remaining;
      specs.add(ids.map(generated -> continuation(job, i, generated, budget)));
    }
    return Future.all(specs).map(all -> new ResumePlan(
        specs.stream().map(Future::result).toList(), exhausted));
  }

  private static AttemptSpec continuation(CompletionJob job, int clientIndex, int[] generated,
      Integer budget) {
    int[] prompt = new int[job.promptIds().length + generated.length];
    System.arraycopy(job.promptIds(), 0, prompt, 0, job.promptIds().length);
    System.arraycopy(generated, 0, prompt, job.promptIds().length, generated.length);
    return new AttemptSpec(prompt, 1, budget, List.of(ChoiceRoute.to(clientIndex)),
        "continue choice " + clientIndex + " after " + generated.length + " tokens");
  }

  private static ResumePlan replay(CompletionJob job, ChoiceLedger ledger, Collection<Integer> choices) {
    List<ChoiceRoute> routes = new ArrayList<>();
    for (int i = 0; i < job.n(); i++) {
      ChoiceLedger.Choice c = ledger.get(i);
      routes.add(choices.contains(i)
          ? new ChoiceRoute(i, c.text.length(), c.tokensKnown ? c.tokens : 0, false)
          : ChoiceRoute.dropped(i));
    }
    return new ResumePlan(List.of(new AttemptSpec(job.promptIds(), job.n(), job.maxTokens(), routes,
        "replay of choices " + choices)), List.of());
  }
}
