package dev.tandem.chat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The chat test data under src/test/resources/chat (see generate_expected.py there). */
public final class TestData {
  private TestData() {}

  public static String text(String path) {
    try (InputStream in = TestData.class.getResourceAsStream("/chat/" + path)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource chat/" + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static JsonArray array(String path) {
    return new JsonArray(text(path));
  }

  public static JsonObject object(String path) {
    return new JsonObject(text(path));
  }
}
