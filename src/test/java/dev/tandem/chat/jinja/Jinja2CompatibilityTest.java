package dev.tandem.chat.jinja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tandem.chat.TestData;
import io.vertx.core.json.JsonObject;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each place where Jinjava and Python's Jinja2 differ, as a small template rendered here and by
 * jinja2 under transformers' settings (expected/jinja2-cases.json, made by generate_expected.py):
 * the outputs must be equal character for character, and a template that fails in Python must fail
 * here (with the same message when it called raise_exception).
 */
class Jinja2CompatibilityTest {
  private static final Jinja2Environment ENVIRONMENT = new Jinja2Environment();

  static Stream<Arguments> cases() {
    JsonObject expected = TestData.object("expected/jinja2-cases.json");
    return TestData.array("jinja2-cases.json").stream().map(JsonObject.class::cast)
        .map(c -> Arguments.of(Named.of(c.getString("name"), c), expected.getJsonObject(c.getString("name"))));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void rendersAsJinja2(JsonObject c, JsonObject expected) {
    String template = c.getString("template");
    JsonObject context = c.getJsonObject("context");
    if (expected.containsKey("output")) {
      assertEquals(expected.getString("output"), ENVIRONMENT.compile(template).render(context.getMap()));
      return;
    }
    Jinja2Exception e = assertThrows(Jinja2Exception.class,
        () -> ENVIRONMENT.compile(template).render(context.getMap()));
    if (expected.getBoolean("raised")) {
      assertEquals(Jinja2Exception.Kind.RAISED, e.kind());
      assertEquals(expected.getString("error"), e.getMessage());
    }
  }
}
