package dev.tandem.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code tandem} command: one subcommand per job. */
@Command(name = "tandem", mixinStandardHelpOptions = true, version = "tandem 0.1.0",
    description = "Multi-engine LLM serving router with prefill/decode disaggregation.",
    subcommands = {ServeCommand.class, MakeModelCommand.class, RouterCommand.class,
        DemoCommand.class, BenchCommand.class, NodeCommand.class})
public final class Tandem implements Runnable {

  static {
    // DJL probes a cloud metadata address for telemetry unless switched off before first use.
    System.setProperty("ai.djl.offline", "true");
    System.setProperty("hazelcast.phone.home.enabled", "false");
    // Hazelcast logs every membership step at info; DJL's GPU probe warns twice on a machine with
    // a CUDA toolkit and no driver, though the tokenizer never uses a GPU
    // (conf/simplelogger.properties says the same).
    quietUnlessSet("com.hazelcast", "warn");
    quietUnlessSet("ai.djl.util.cuda.CudaUtils", "error");
  }

  private static void quietUnlessSet(String logger, String level) {
    String key = "org.slf4j.simpleLogger.log." + logger;
    if (System.getProperty(key) == null) {
      System.setProperty(key, level);
    }
  }

  @Override
  public void run() {
    CommandLine.usage(this, System.out);
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new Tandem()).execute(args));
  }
}
