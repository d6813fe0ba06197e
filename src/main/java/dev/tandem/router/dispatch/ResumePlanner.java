package dev.tandem.router.dispatch;

import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Plans the resumption of choices an engine did not finish, so that a client never sees text
 * twice (MLC restarts from scratch and streams the duplicate, reference §6 item 2):
 *
 * <ul>
 *   <li><b>continue</b> (greedy decoding): a new n=1 attempt per choice whose prompt is the
 *       original prompt plus the tokens already delivered, with the remaining budget. Exact on a
 *       batch-invariant engine, which computes the same logits for a token whether it was decoded
 *       or is part of a prompt. Needs the delivered token ids: from the chunks if the engine names
 *       them, else from its usage record, matched against the delivered text.
 *   <li><b>replay</b> (sampling, penalties, or ids unknown): the original request again, same
 *       n and seed, cutting from each choice what was delivered and dropping finished choices.
 *       Exact on a deterministic engine; continuing would shift a seeded random stream instead
 *       (and would count delivered tokens as prompt, which frequency and presence penalties do
 *       not). Sampling requests always carry a seed (the router picks one when the client did
 *       not). The relay checks the replay against what was delivered ({@link ReplayCheck}).
 * </ul>
 *
 * Known limit of continuing: a stop string that spans the resume point is not detected.
 */
final class ResumePlanner {

  private final DeliveredTokens matcher;

  /** @param matcher null when no tokenizer is at hand (then only exact chunk ids or replay) */
  ResumePlanner(DeliveredTokens matcher) {
    this.matcher = matcher;
  }

  Future<ResumePlan> plan(CompletionJob job, ChoiceLedger ledger, Collection<Integer> choices,
      boolean replayMode) {
    if (replayMode || !job.continuable()) {
      return Future.succeededFuture(replay(job, ledger, choices));
    }
    List<Future<Void>> resolving = new ArrayList<>();
    for (int i : choices) {
      resolving.add(resolve(ledger.get(i)));
    }
    return Future.all(resolving).map(v -> {
      if (!choices.stream().allMatch(i -> ledger.get(i).idsComplete)) {
        return replay(job, ledger, choices);
      }
      List<Integer> exhausted = new ArrayList<>();
      List<AttemptSpec> specs = new ArrayList<>();
      for (int i : choices) {
        ChoiceLedger.Choice c = ledger.get(i);
        Integer remaining = job.maxTokens() == null ? null : job.maxTokens() - c.tokens;
        if (remaining != null && remaining <= 0) {
          exhausted.add(i);
        } else {
          specs.add(continuation(job, i, c.tokenIds(), remaining));
        }
      }
      return new ResumePlan(specs, exhausted, false);
    });
  }

  /** Turns a preempted attempt's token record into delivered ids, or marks the ids unknown. */
  private Future<Void> resolve(ChoiceLedger.Choice c) {
    AttemptResult.ChoiceOutcome o = c.unresolved;
    if (o == null) {
      return Future.succeededFuture();
    }
    c.unresolved = null;
    if (matcher == null) {
      c.idsUnknown();
      return Future.succeededFuture();
    }
    return matcher.count(o.promptTail(), o.outputIds(), o.text()).transform(ar -> {
      if (ar.succeeded() && ar.result() >= 0) {
        c.addIds(Arrays.copyOf(o.outputIds(), ar.result()));
      } else {
        c.idsUnknown();
      }
      return Future.succeededFuture();
    });
  }

  private static AttemptSpec continuation(CompletionJob job, int clientIndex, int[] generated,
      Integer budget) {
    int[] prompt = new int[job.promptIds().length + generated.length];
    System.arraycopy(job.promptIds(), 0, prompt, 0, job.promptIds().length);
    System.arraycopy(generated, 0, prompt, job.promptIds().length, generated.length);
    return new AttemptSpec(prompt, 1, budget, List.of(ChoiceRoute.to(clientIndex)), false,
        "continue choice " + clientIndex + " after " + generated.length + " tokens");
  }

  private static ResumePlan replay(CompletionJob job, ChoiceLedger ledger, Collection<Integer> choices) {
    List<ChoiceRoute> routes = new ArrayList<>();
    for (int i = 0; i < job.n(); i++) {
      ChoiceLedger.Choice c = ledger.get(i);
      if (!choices.contains(i)) {
        routes.add(ChoiceRoute.dropped(i));
        continue;
      }
      // The replay must reproduce the delivered text, token by token where the ids are known.
      int[] ids = c.idsComplete && c.unresolved == null ? c.tokenIds() : null;
      c.unresolved = null; // the replay's own token record replaces it
      routes.add(ChoiceRoute.replay(i, c.text.toString(), ids, c.logprobEntries));
    }
    return new ResumePlan(List.of(new AttemptSpec(job.promptIds(), job.n(), job.maxTokens(), routes,
        true, "replay of choices " + choices)), List.of(), true);
  }
}
