package dev.tandem.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code tandem bench}: OpenAI completions load generator. (not implemented yet) */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "OpenAI completions load generator.")
public final class BenchCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    System.err.println("tandem bench: not implemented yet");
    return 1;
  }
}
