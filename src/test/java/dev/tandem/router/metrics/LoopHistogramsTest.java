package dev.tandem.router.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Per-thread histogram cells, summed and written as Prometheus text by the router's registry. */
class LoopHistogramsTest {

  private static final Duration[] BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10),
      Duration.ofMillis(100)};

  /** The scrape's samples, by name and labels as written (e.g. {@code x_count{a="1"}}). */
  private static Map<String, Double> samples(PrometheusMeterRegistry registry) {
    Map<String, Double> out = new HashMap<>();
    for (String line : registry.scrape().split("\n")) {
      if (!line.startsWith("#") && !line.isBlank()) {
        int space = line.lastIndexOf(' ');
        out.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
      }
    }
    return out;
  }

  @Test
  void valuesFromManyThreadsAreCountedOnceInTheirBuckets() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    LoopHistograms h = new LoopHistograms("test_latency", "A test latency.", BUCKETS, "mode",
        "engine");
    registry.getPrometheusRegistry().register(h);
    LoopHistograms.Series a = h.series("rr", "0");
    LoopHistograms.Series b = h.series("rr", "1");
    int threads = 4;
    int perThread = 10_000;
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread thread = new Thread(() -> {
        for (int i = 0; i < perThread; i++) {
          a.record(TimeUnit.MILLISECONDS.toNanos(i % 4 == 0 ? 3 : 7)); // a quarter at 3 ms
        }
        b.record(TimeUnit.MILLISECONDS.toNanos(500)); // beyond the last bucket
        b.record(-1); // unknown: not recorded
      });
      thread.start();
      started.add(thread);
    }
    for (Thread t : started) {
      t.join();
    }
    Map<String, Double> m = samples(registry);
    String ra = "{engine=\"0\",mode=\"rr\"";
    assertEquals(threads * perThread, m.get("test_latency_seconds_count" + ra + "}"));
    assertEquals(threads * perThread / 4, m.get("test_latency_seconds_bucket" + ra + ",le=\"0.005\"}"));
    assertEquals(threads * perThread, m.get("test_latency_seconds_bucket" + ra + ",le=\"0.01\"}"));
    assertEquals(threads * perThread, m.get("test_latency_seconds_bucket" + ra + ",le=\"+Inf\"}"));
    double sum = threads * (perThread / 4 * 0.003 + perThread * 3 / 4 * 0.007);
    assertEquals(sum, m.get("test_latency_seconds_sum" + ra + "}"), 1e-6);
    assertEquals(0.007, m.get("test_latency_seconds_max" + ra + "}"), 1e-9);
    String rb = "{engine=\"1\",mode=\"rr\"";
    assertEquals(threads, m.get("test_latency_seconds_count" + rb + "}"));
    assertEquals(0, m.get("test_latency_seconds_bucket" + rb + ",le=\"0.1\"}"));
    assertEquals(threads, m.get("test_latency_seconds_bucket" + rb + ",le=\"+Inf\"}"));
    assertEquals(0.5, m.get("test_latency_seconds_max" + rb + "}"), 1e-9);
    String text = registry.scrape();
    assertTrue(text.contains("# TYPE test_latency_seconds histogram"), text);
    assertTrue(text.contains("# HELP test_latency_seconds A test latency."), text);
  }

  @Test
  void aSeriesWithNothingRecordedShowsZeros() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    LoopHistograms h = new LoopHistograms("idle", "Nothing yet.", BUCKETS, "call");
    registry.getPrometheusRegistry().register(h);
    h.series("completions");
    Map<String, Double> m = samples(registry);
    assertEquals(0, m.get("idle_seconds_count{call=\"completions\"}"));
    assertEquals(0, m.get("idle_seconds_max{call=\"completions\"}"));
  }

  @Test
  void theMaxCoversWhatCameSinceAScrapeLongAgoAndThenLetsGo() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    LoopHistograms h = new LoopHistograms("slow_scrape", "Scraped rarely.", BUCKETS, "call");
    registry.getPrometheusRegistry().register(h);
    LoopHistograms other = new LoopHistograms("other", "Scraped with it.", BUCKETS, "call");
    registry.getPrometheusRegistry().register(other);
    LoopHistograms.Series s = h.series("completions");
    LoopHistograms.Series o = other.series("completions");
    long now = System.currentTimeMillis() / 60_000;
    h.lastScrapedMinute(now - 5); // the last scrape was five minutes ago
    other.lastScrapedMinute(now - 5);
    s.record(TimeUnit.MILLISECONDS.toNanos(42));
    o.record(TimeUnit.MILLISECONDS.toNanos(7));
    Map<String, Double> m = samples(registry);
    assertEquals(0.042, m.get("slow_scrape_seconds_max{call=\"completions\"}"), 1e-9,
        "recorded since the last scrape");
    assertEquals(0.007, m.get("other_seconds_max{call=\"completions\"}"), 1e-9,
        "each family keeps its own minute: scraping one first does not move the other's");
    h.lastScrapedMinute(now + 2); // two minutes on, nothing recorded since
    m = samples(registry);
    assertEquals(0, m.get("slow_scrape_seconds_max{call=\"completions\"}"), "an old max lets go");
    assertEquals(1, m.get("slow_scrape_seconds_count{call=\"completions\"}"), "counts stay");
  }

  @Test
  void labelsAndBucketsAreChecked() {
    LoopHistograms h = new LoopHistograms("x", "x", BUCKETS, "mode", "engine");
    assertThrows(IllegalArgumentException.class, () -> h.series("only one"));
    assertThrows(IllegalArgumentException.class, () -> new LoopHistograms("y", "y",
        new Duration[] {Duration.ofMillis(10), Duration.ofMillis(5)}, "a"));
  }
}
