package dev.tandem.supervisor;

import static dev.tandem.config.RouterConfig.ENDPOINT_PORTS;
import static dev.tandem.config.RouterConfig.ENGINE_CDS;
import static dev.tandem.config.RouterConfig.ENGINE_JVM_OPTS;
import static dev.tandem.config.RouterConfig.LOG_DIR;
import static dev.tandem.config.RouterConfig.MODEL;
import static dev.tandem.config.RouterConfig.STARTUP_TIMEOUT;
import static dev.tandem.config.RouterConfig.STOP_GRACE;
import static dev.tandem.config.RouterOptions.ROUTER_MODE;
import static dev.tandem.config.RouterOptions.ROUTER_PORT;

import dev.tandem.config.RouterConfig;
import dev.tandem.config.RouterMode;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Time to ready of a fleet of builtin engines: from deploying the {@link SupervisorVerticle} to
 * its start completing (every engine READY, world formed, tokenizer loaded, router listening).
 * One engine runs round-robin (no world); 3 and 4 run disagg (1 prefill, the rest decode, one
 * world), and 4 also round-robin to separate the world's share. Prints a Markdown table.
 *
 * <p>{@code java -cp tandem.jar dev.tandem.supervisor.StartupBenchmark MODEL [RUNS] [JVM_OPTS]
 * [cds|no-cds]} (one untimed fleet first, which also writes the class-data archive);
 * see bench/startup.sh.
 */
public final class StartupBenchmark {

  private record Case(int engines, RouterMode mode) {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: StartupBenchmark MODEL [RUNS] [ENGINE_JVM_OPTS] [cds|no-cds]");
      System.exit(2);
    }
    Path model = Path.of(args[0]);
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    List<String> jvmOpts = args.length > 2 ? Arrays.asList(args[2].trim().split("\\s+"))
        : List.of("-Xmx512m");
    boolean cds = args.length <= 3 || !args[3].equals("no-cds");
    List<Case> cases = List.of(new Case(1, RouterMode.ROUND_ROBIN), new Case(3, RouterMode.DISAGG),
        new Case(4, RouterMode.DISAGG), new Case(4, RouterMode.ROUND_ROBIN));
    Path logs = Files.createTempDirectory("tandem-startup-bench");
    Vertx vertx = Vertx.vertx();
    try {
      // Untimed: the JVMs' page cache, and with CDS the class-data archive, as a second start finds them.
      timeToReady(vertx, config(model, cases.get(0), jvmOpts, logs).set(ENGINE_CDS, cds));
      System.out.println("engine class-data sharing: " + (cds ? "on" : "off"));
      System.out.println();
      System.out.println("| engines | mode | runs | median (s) | min (s) | max (s) |");
      System.out.println("|---|---|---|---|---|---|");
      double oneEngine = 0;
      double fourEngines = 0;
      for (Case c : cases) {
        List<Double> times = new ArrayList<>();
        for (int r = 0; r < runs; r++) {
          times.add(timeToReady(vertx, config(model, c, jvmOpts, logs).set(ENGINE_CDS, cds)));
        }
        times.sort(Double::compare);
        double median = times.get(times.size() / 2);
        if (c.engines() == 1) {
          oneEngine = median;
        } else if (c.engines() == 4 && c.mode() == RouterMode.DISAGG) {
          fourEngines = median;
        }
        System.out.printf(Locale.ROOT, "| %d | %s | %d | %.2f | %.2f | %.2f |%n", c.engines(),
            c.mode().wireName(), runs, median, times.get(0), times.get(times.size() - 1));
      }
      System.out.printf(Locale.ROOT, "%nratio 4 engines (disagg) / 1 engine: %.2f (goal <= 1.5)%n",
          fourEngines / oneEngine);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  private static RouterConfig config(Path model, Case c, List<String> jvmOpts, Path logs)
      throws IOException {
    int[] ports = freePorts(c.engines() + 1);
    List<Integer> enginePorts = new ArrayList<>();
    for (int i = 0; i < c.engines(); i++) {
      enginePorts.add(ports[i]);
    }
    return new RouterConfig().set(MODEL, model.toString()).set(ROUTER_MODE, c.mode())
        .set(ROUTER_PORT, ports[c.engines()]).set(ENDPOINT_PORTS, enginePorts)
        .set(ENGINE_JVM_OPTS, jvmOpts)
        .set(LOG_DIR, logs.toString()).set(STARTUP_TIMEOUT, Duration.ofSeconds(180))
        .set(STOP_GRACE, Duration.ofSeconds(5));
  }

  private static double timeToReady(Vertx vertx, RouterConfig config) throws Exception {
    long t0 = System.nanoTime();
    String id = vertx.deployVerticle(new SupervisorVerticle(config)).toCompletionStage()
        .toCompletableFuture().get(240, TimeUnit.SECONDS);
    double seconds = (System.nanoTime() - t0) / 1e9;
    vertx.undeploy(id).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    return seconds;
  }

  private static int[] freePorts(int n) throws IOException {
    int[] ports = new int[n];
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        held.add(socket);
        ports[i] = socket.getLocalPort();
      }
    } finally {
      for (ServerSocket socket : held) {
        socket.close();
      }
    }
    return ports;
  }

  private StartupBenchmark() {}
}
