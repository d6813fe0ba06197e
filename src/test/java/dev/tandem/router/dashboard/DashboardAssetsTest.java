package dev.tandem.router.dashboard;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The page the jar serves loads only what the jar has: every {@code src}/{@code href} of
 * index.html is a file of the page or of a WebJar on the class path (so a Chart.js version bump
 * in pom.xml that forgets the page fails here, not in a browser).
 */
class DashboardAssetsTest {

  private static final Pattern ASSET = Pattern.compile("(?:src|href)=\"([^\"]+)\"");

  @Test
  void everyAssetOfThePageIsOnTheClassPath() throws IOException {
    String page = read("tandem-dashboard/index.html");
    List<String> assets = new ArrayList<>();
    Matcher m = ASSET.matcher(page);
    while (m.find()) {
      assets.add(m.group(1));
    }
    assertTrue(assets.stream().anyMatch(a -> a.startsWith("webjars/chart.js/")), assets.toString());
    for (String asset : assets) {
      assertFalse(asset.startsWith("http"), "nothing from the network: " + asset);
      String resource = asset.startsWith("webjars/") ? "META-INF/resources/" + asset
          : "tandem-dashboard/" + asset;
      assertNotNull(getClass().getClassLoader().getResource(resource), resource + " is missing");
    }
  }

  private static String read(String resource) throws IOException {
    try (InputStream in = DashboardAssetsTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertNotNull(in, resource);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
