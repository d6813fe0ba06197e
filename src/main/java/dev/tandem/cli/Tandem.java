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
    // Hazelcast logs every membership step at info (conf/simplelogger.properties says the same).
    if (System.getProperty("org.slf4j.simpleLogger.log.com.hazelcast") == null) {
      System.setProperty("org.slf4j.simpleLogger.log.com.hazelcast", "warn");
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
