package dev.tandem.engine.sched;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Gathers a request's outputs in tests: text, tokens, logprobs and finish reason per choice. */
final class Collector implements GenerationListener {
  final CompletableFuture<Collector> done = new CompletableFuture<>();
  final List<StringBuilder> texts = new ArrayList<>();
  final List<List<Integer>> tokens = new ArrayList<>();
  final List<List<TokenLogprob>> logprobs = new ArrayList<>();
  final List<FinishReason> finish = new ArrayList<>();
  final List<GenerationOutput> outputs = new ArrayList<>();
  volatile RequestUsage usage;

  @Override
  public synchronized void onOutput(GenerationOutput output) {
    outputs.add(output);
    for (ChoiceDelta d : output.choices()) {
      while (texts.size() <= d.index()) {
        texts.add(new StringBuilder());
        tokens.add(new ArrayList<>());
        logprobs.add(new ArrayList<>());
        finish.add(null);
      }
      texts.get(d.index()).append(d.text());
      for (int t : d.tokenIds()) {
        tokens.get(d.index()).add(t);
      }
      if (d.logprobs() != null) {
        logprobs.get(d.index()).addAll(d.logprobs());
      }
      if (d.finishReason() != null) {
        finish.set(d.index(), d.finishReason());
      }
    }
    if (output.isFinal()) {
      usage = output.usage();
      done.complete(this);
    }
  }

  @Override
  public void onFailure(Throwable failure) {
    done.completeExceptionally(failure);
  }

  Collector await() throws Exception {
    return done.get(20, TimeUnit.SECONDS);
  }

  int[] tokens(int choice) {
    return tokens.get(choice).stream().mapToInt(Integer::intValue).toArray();
  }

  String text(int choice) {
    return texts.get(choice).toString();
  }
}
