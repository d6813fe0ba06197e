package dev.tandem.chat.jinja;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.exptest.ExpTest;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Jinja2's tests ({@code x is none}, {@code x is string}, ...) over Python-shaped values: None is
 * {@link PyNone} and is defined; Undefined is Java null; booleans are not integers.
 */
final class PyTests {
  private PyTests() {}

  static List<ExpTest> all() {
    return List.of(
        test("none", PyNone::is),
        test("defined", v -> v != null),
        test("undefined", v -> v == null),
        test("string", v -> v instanceof CharSequence),
        test("mapping", v -> v instanceof Map),
        test("sequence", v -> v instanceof CharSequence || v instanceof List || v instanceof Map),
        test("iterable", v -> v instanceof CharSequence || v instanceof Iterable || v instanceof Map),
        test("boolean", v -> v instanceof Boolean),
        test("true", v -> Boolean.TRUE.equals(v)),
        test("false", v -> Boolean.FALSE.equals(v)),
        test("number", v -> v instanceof Number || v instanceof Boolean),
        test("integer", v -> v instanceof Integer || v instanceof Long || v instanceof java.math.BigInteger),
        test("float", v -> v instanceof Double || v instanceof Float || v instanceof java.math.BigDecimal));
  }

  private static ExpTest test(String name, Predicate<Object> predicate) {
    return new ExpTest() {
      @Override
      public String getName() {
        return name;
      }

      @Override
      public boolean evaluate(Object var, JinjavaInterpreter interpreter, Object... args) {
        return predicate.test(var);
      }
    };
  }
}
