package dev.tandem.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The option tables in docs/ and conf/router.json follow the declarations, so they cannot drift. */
class RouterConfigDocsTest {

  private static String generatedTable(Path doc) throws IOException {
    String text = Files.readString(doc);
    int begin = text.indexOf("<!-- options:begin");
    int end = text.indexOf("<!-- options:end -->");
    assertTrue(begin >= 0 && end > begin, doc + " has the option table markers");
    return text.substring(text.indexOf('\n', begin) + 1, end);
  }

  @Test
  void fleetDocShowsEveryOption() throws IOException {
    assertEquals(RouterConfig.OPTIONS.markdown(), generatedTable(Path.of("docs/fleet.md")),
        "docs/fleet.md: paste RouterConfig.OPTIONS.markdown() between the markers");
  }

  @Test
  void routerDocShowsEveryRouterOption() throws IOException {
    assertEquals(RouterOptions.OPTIONS.markdown(), generatedTable(Path.of("docs/router.md")),
        "docs/router.md: paste RouterOptions.OPTIONS.markdown() between the markers");
  }

  @Test
  void confRouterJsonHoldsEveryOptionAndTheRoutersDefaults() throws IOException {
    JsonObject json = new JsonObject(Files.readString(Path.of("conf/router.json")));
    RouterConfig config = RouterConfig.fromJson(json);
    for (Option<?> option : RouterConfig.OPTIONS.options()) {
      assertTrue(json.containsKey(option.key()), "conf/router.json lacks " + option.key());
    }
    for (Option<?> option : RouterOptions.OPTIONS.options()) {
      assertEquals(option.defaultValue(), config.get(option), "conf/router.json: " + option.key());
    }
    ConfigValidator.validate(config);
  }
}
