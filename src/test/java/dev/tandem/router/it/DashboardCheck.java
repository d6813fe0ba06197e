package dev.tandem.router.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.testing.HeadlessChromium;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;

/**
 * /dashboard in Debian's chromium, headless, over DevTools: the page loads with the admin key (an
 * Authorization header on every request of the page), shows a row per engine, and its charts
 * gain points and TTFT values while requests run; a screenshot goes to
 * target/operations-dashboard.png (docs/operations.md shows one). Skipped, saying so, where
 * chromium is not installed.
 */
final class DashboardCheck {

  private DashboardCheck() {}

  static void run(OpsFleet fleet, String adminKey, String userKey) throws Exception {
    Path chromium = HeadlessChromium.find();
    Assumptions.assumeTrue(chromium != null, "chromium is not installed (apt-get install chromium,"
        + " or set CHROMIUM): the dashboard browser test is skipped");
    AtomicBoolean loading = new AtomicBoolean(true);
    AtomicInteger sent = new AtomicInteger();
    Thread load = new Thread(() -> {
      while (loading.get() && sent.get() < 400) { // bounded: stops by itself
        fleet.complete(userKey, 24);
        sent.incrementAndGet();
      }
    }, "dashboard-load");
    load.setDaemon(true);
    load.start();
    try (HeadlessChromium browser = HeadlessChromium.start(fleet.vertx, chromium, 1400, 1100)) {
      browser.call("Network.enable", new JsonObject());
      browser.call("Network.setExtraHTTPHeaders", new JsonObject().put("headers",
          new JsonObject().put("Authorization", "Bearer " + adminKey)));
      browser.call("Page.enable", new JsonObject());
      browser.call("Page.navigate", new JsonObject().put("url",
          "http://127.0.0.1:" + fleet.port() + "/dashboard/"));
      waitFor(browser, "window.tandemDashboard && window.tandemDashboard.updates >= 2", 30_000);
      assertEquals(0, number(browser.eval("window.tandemDashboard.errors")), "every poll answered");
      JsonArray engines = fleet.engines(adminKey);
      assertEquals(engines.size(), number(browser.eval(
          "document.querySelectorAll('#engines tbody tr').length")), "a row per engine");
      for (Object o : engines) {
        int id = ((JsonObject) o).getInteger("id");
        assertEquals(1, number(browser.eval("document.querySelectorAll('#engines tbody tr[data-engine=\""
            + id + "\"]').length")), "engine " + id + " shown");
      }
      assertEquals(engines.size(), number(browser.eval(
          "window.tandemDashboard.charts.engines.data.datasets.length")), "a line per engine");
      int points = number(browser.eval("window.tandemDashboard.charts.ttft.data.labels.length"));
      int updates = number(browser.eval("window.tandemDashboard.updates"));
      waitFor(browser, "window.tandemDashboard.charts.ttft.data.labels.length >= " + (points + 3)
          + " && window.tandemDashboard.updates >= " + (updates + 3), 20_000);
      int withTtft = number(browser.eval("window.tandemDashboard.charts.ttft.data.datasets[1].data"
          + ".filter(v => v !== null).length"));
      assertTrue(withTtft >= 3, "TTFT p90 points drawn while load runs: " + withTtft);
      double rps = ((Number) browser.eval("Math.max(...window.tandemDashboard.charts.load.data"
          + ".datasets[0].data.slice(-5))")).doubleValue();
      assertTrue(rps > 0, "the request rate moves: " + rps);
      byte[] png = browser.screenshot();
      assertTrue(png.length > 10_000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G');
      Path shot = Path.of("target", "operations-dashboard.png");
      Files.createDirectories(shot.getParent());
      Files.write(shot, png);
    } finally {
      loading.set(false);
      load.join(60_000);
    }
    assertTrue(sent.get() > 0);
  }

  private static void waitFor(HeadlessChromium browser, String condition, long timeoutMs)
      throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!Boolean.TRUE.equals(browser.eval("!!(" + condition + ")"))) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("the dashboard never met: " + condition + "; page status: "
            + browser.eval("document.getElementById('status') && document.getElementById('status').textContent"));
      }
      Thread.sleep(200); // test thread
    }
  }

  private static int number(Object value) {
    return ((Number) value).intValue();
  }
}
