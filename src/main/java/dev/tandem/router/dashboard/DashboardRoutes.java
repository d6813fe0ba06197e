package dev.tandem.router.dashboard;

import dev.tandem.router.metrics.RecentErrors;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.StaticHandler;
import java.util.function.Supplier;

/**
 * {@code /dashboard}: one page from the jar ({@code tandem-dashboard/} on the class path), the
 * charting library from its WebJar ({@code META-INF/resources/webjars}, served under
 * {@code /dashboard/webjars/}), and {@code /dashboard/data}, the JSON the page polls every second:
 * the engines as the admin API shows them, the feed's time series and the recent errors. The
 * caller puts the admin check in front of {@code /dashboard*}.
 */
public final class DashboardRoutes {

  private DashboardRoutes() {}

  /**
   * @param engines the admin view of the engines ({@code {"engines": [...], ...}})
   * @param about mode and model, shown in the page's title bar
   */
  public static void mount(Router router, Supplier<JsonObject> engines, DashboardFeed feed,
      RecentErrors errors, JsonObject about) {
    router.get("/dashboard").handler(ctx -> {
      if (ctx.request().path().equals("/dashboard")) { // the route matches "/dashboard/" too
        ctx.redirect("/dashboard/");
      } else {
        ctx.next();
      }
    });
    router.get("/dashboard/data").handler(ctx -> ctx.response()
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
        .end(new JsonObject().put("about", about).put("fleet", engines.get())
            .put("series", feed.toJson()).put("errors", errors.toJson()).encode()));
    router.get("/dashboard/webjars/*").handler(StaticHandler.create("META-INF/resources/webjars")
        .setCachingEnabled(true).setMaxAgeSeconds(86_400));
    router.get("/dashboard/*").handler(StaticHandler.create("tandem-dashboard")
        .setCachingEnabled(false).setIndexPage("index.html"));
  }
}
