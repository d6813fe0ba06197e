package dev.tandem.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code tandem make-model}: Write a seeded random Llama model folder (HF layout). (not implemented yet) */
@Command(name = "make-model", mixinStandardHelpOptions = true, description = "Write a seeded random Llama model folder (HF layout).")
public final class MakeModelCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    System.err.println("tandem make-model: not implemented yet");
    return 1;
  }
}
