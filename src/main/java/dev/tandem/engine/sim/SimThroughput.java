package dev.tandem.engine.sim;

import dev.tandem.engine.model.LlamaConfig;
import dev.tandem.engine.sched.Engine;
import dev.tandem.engine.sched.EngineOptions;
import dev.tandem.engine.sched.GenerationListener;
import dev.tandem.engine.sched.GenerationOutput;
import dev.tandem.engine.sched.GenerationRequest;
import dev.tandem.engine.sched.SamplingParams;
import dev.tandem.tokenizer.TextTokenizer;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A profile's offline throughput as published benchmarks measure it ({@code trtllm-bench
 * throughput}, LMDeploy's static benchmark): {@code requests} prompts of {@code isl} tokens, each
 * answered with exactly {@code osl} tokens, all queued at once, at most {@code batch} running. It
 * runs the real engine (scheduler, KV cache) over the simulated model with a {@link
 * Pacer.Virtual} clock, so the answer is the timing model's, not this machine's.
 *
 * <p>{@code java -cp tandem.jar dev.tandem.engine.sim.SimThroughput [PROFILE...]} prints every
 * check of the profiles (default: all shipped) beside the figure it is checked against.
 */
public final class SimThroughput {

  /** What one run measured, in simulated time. */
  public record Result(double seconds, long outputTokens, long promptTokens, double ttftMs) {
    public double outputTokPerS() {
      return outputTokens / seconds;
    }

    public double promptTokPerS() {
      return promptTokens / seconds;
    }
  }

  private SimThroughput() {}

  public static Result run(SimProfile profile, int isl, int osl, int batch, int requests)
      throws InterruptedException {
    StepTimeModel timing = new StepTimeModel(profile);
    Pacer.Virtual clock = new Pacer.Virtual();
    int vocab = 1024;
    LlamaConfig shape = new LlamaConfig(vocab, 2, 2, 1, 1, 1, 2, 1e4, 1e-5,
        profile.model().context(), true, 0, 0);
    SimForwardModel model = new SimForwardModel(shape, timing, clock);
    EngineOptions sized = SimSizing.size(model, timing, "server",
        dev.tandem.engine.server.EngineOverrides.none(), false, Duration.ofSeconds(60));
    EngineOptions options = new EngineOptions(batch, sized.numKvPages(), sized.prefillChunkSize(),
        sized.maxSequenceLength(), false, sized.parkedTtl());
    CountDownLatch done = new CountDownLatch(requests);
    AtomicLong outputTokens = new AtomicLong();
    AtomicLong firstTokenAt = new AtomicLong(-1);
    try (Engine engine = new Engine(model, new CountingTokenizer(vocab), options)) {
      SplittableRandom random = new SplittableRandom(42);
      for (int i = 0; i < requests; i++) {
        int[] prompt = new int[isl];
        for (int j = 0; j < isl; j++) {
          prompt[j] = 3 + random.nextInt(vocab - 3);
        }
        engine.submit(new GenerationRequest("r" + i, prompt, 1,
            new SamplingParams(0, 1, 0, osl, null, List.of(), true)), new GenerationListener() {
              @Override
              public void onOutput(GenerationOutput output) {
                firstTokenAt.compareAndSet(-1, clock.elapsedNanos());
                if (output.isFinal()) {
                  outputTokens.addAndGet(output.usage().completionTokens());
                  done.countDown();
                }
              }

              @Override
              public void onFailure(Throwable failure) {
                done.countDown();
              }
            });
      }
      engine.start();
      if (!done.await(10, TimeUnit.MINUTES)) {
        throw new IllegalStateException("calibration run did not finish");
      }
    }
    return new Result(clock.elapsedNanos() / 1e9, outputTokens.get(), (long) isl * requests,
        firstTokenAt.get() / 1e6);
  }

  /** Runs one published check; the figure to compare is its output rate (or its TTFT). */
  public static Result run(SimProfile profile, SimProfile.Check check) throws InterruptedException {
    return run(profile, check.isl(), check.osl(), check.batch(), check.requests());
  }

  public static void main(String[] args) throws IOException, InterruptedException {
    List<String> names = args.length == 0 ? SimProfile.SHIPPED : List.of(args);
    System.out.println("| profile | check | ISL/OSL | batch | published | simulated | ratio | source |");
    System.out.println("|---|---|---|---:|---:|---:|---:|---|");
    for (String name : names) {
      SimProfile p = SimProfile.load(name);
      for (SimProfile.Check c : p.checks()) {
        Result r = run(p, c);
        boolean ttft = c.ttftMs() > 0;
        double published = ttft ? c.ttftMs() : c.outputTokPerS();
        double simulated = ttft ? r.seconds() * 1000 : r.outputTokPerS();
        System.out.printf(Locale.ROOT, "| %s | %s | %d/%d | %d | %,.0f %s | %,.0f | %.2f | %s |%n",
            p.name(), c.what(), c.isl(), c.osl(), c.batch(), published,
            ttft ? "ms TTFT" : "out tok/s", simulated, simulated / published, c.source());
      }
    }
  }

  /** Calibration needs no text: every token is one character. */
  private record CountingTokenizer(int vocabSize) implements TextTokenizer {
    @Override
    public int[] encode(String text) {
      return new int[text.length()];
    }

    @Override
    public String decode(int[] ids) {
      return "x".repeat(ids.length);
    }

    @Override
    public void close() {}
  }
}
