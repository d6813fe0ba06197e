package dev.tandem.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code tandem demo}: Make the tiny model, start 1 prefill + 2 decode engines and the router, stream a sample. (not implemented yet) */
@Command(name = "demo", mixinStandardHelpOptions = true, description = "Make the tiny model, start 1 prefill + 2 decode engines and the router, stream a sample.")
public final class DemoCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    System.err.println("tandem demo: not implemented yet");
    return 1;
  }
}
