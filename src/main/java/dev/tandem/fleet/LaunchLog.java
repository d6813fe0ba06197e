package dev.tandem.fleet;

import io.vertx.core.Context;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The progress line of one engine launch: watches the child's output (on its pump thread) for the
 * first line the builtin engine logs when it has joined the KV world, and logs, on the engine
 * verticle's context, how long after the launch that was.
 */
final class LaunchLog implements Consumer<String> {
  private static final Logger LOG = LoggerFactory.getLogger(EngineVerticle.class);
  private static final Pattern JOINED = Pattern.compile("(?i)\\bjoined\\b.*\\bworld\\b");

  private final Context context;
  private final String engine;
  private final long launchedAt;
  private final AtomicBoolean joined = new AtomicBoolean();

  LaunchLog(Context context, String engine, long launchedAt) {
    this.context = context;
    this.engine = engine;
    this.launchedAt = launchedAt;
  }

  @Override
  public void accept(String line) {
    if (!joined.get() && JOINED.matcher(line).find() && joined.compareAndSet(false, true)) {
      context.runOnContext(v -> LOG.info("{}: joined the world after {} s", engine,
          seconds(Duration.ofNanos(System.nanoTime() - launchedAt))));
    }
  }

  /** {@code 1.5} for a second and a half: how the fleet's progress lines show durations. */
  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f", d.toMillis() / 1000.0);
  }
}
