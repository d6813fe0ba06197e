package dev.tandem.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code tandem router}: Start engines and the router (mlc_llm router compatible). (not implemented yet) */
@Command(name = "router", mixinStandardHelpOptions = true, description = "Start engines and the router (mlc_llm router compatible).")
public final class RouterCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    System.err.println("tandem router: not implemented yet");
    return 1;
  }
}
