package dev.tandem.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code tandem serve}: Run the builtin CPU engine server (mlc_llm serve compatible). (not implemented yet) */
@Command(name = "serve", mixinStandardHelpOptions = true, description = "Run the builtin CPU engine server (mlc_llm serve compatible).")
public final class ServeCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    System.err.println("tandem serve: not implemented yet");
    return 1;
  }
}
