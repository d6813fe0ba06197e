package dev.tandem.chat.jinja;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.filter.Filter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Filters whose Jinjava versions differ from Jinja2's (and transformers' {@code tojson}): Python
 * {@code str()} of values, code-point lengths, {@code default} that keeps None and non-strings,
 * Python case rules.
 */
final class PyFilters {
  private PyFilters() {}

  @FunctionalInterface
  interface Body {
    Object apply(Object value, Object[] args, Map<String, Object> kwargs);
  }

  static List<Filter> all() {
    return List.of(
        filter("tojson", PyFilters::tojson),
        filter("string", (v, a, k) -> PyValues.str(v)),
        filter("length", (v, a, k) -> length(v)),
        filter("count", (v, a, k) -> length(v)),
        filter("trim", (v, a, k) -> PyStrings.strip(PyValues.str(v), optString(a, k, 0, "chars"), true, true)),
        filter("upper", (v, a, k) -> PyValues.str(v).toUpperCase(Locale.ROOT)),
        filter("lower", (v, a, k) -> PyValues.str(v).toLowerCase(Locale.ROOT)),
        filter("title", (v, a, k) -> PyStrings.title(PyValues.str(v))),
        filter("capitalize", (v, a, k) -> PyStrings.capitalize(PyValues.str(v))),
        filter("join", PyFilters::join),
        filter("list", (v, a, k) -> list(v)),
        filter("default", PyFilters::defaultValue),
        filter("d", PyFilters::defaultValue));
  }

  static Filter filter(String name, Body body) {
    return new Filter() {
      @Override
      public String getName() {
        return name;
      }

      @Override
      public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args,
          Map<String, Object> kwargs) {
        return body.apply(var, args == null ? new Object[0] : args, kwargs == null ? Map.of() : kwargs);
      }

      @Override
      public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
        return body.apply(var, args, Map.of());
      }
    };
  }

  private static Object arg(Object[] args, Map<String, Object> kwargs, int i, String name) {
    if (kwargs.containsKey(name)) {
      return kwargs.get(name);
    }
    return i < args.length ? args[i] : null;
  }

  private static String optString(Object[] args, Map<String, Object> kwargs, int i, String name) {
    Object v = arg(args, kwargs, i, name);
    return v == null || v == PyNone.NONE ? null : PyValues.str(v);
  }

  /** transformers: {@code tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)}. */
  private static Object tojson(Object value, Object[] args, Map<String, Object> kwargs) {
    boolean ensureAscii = PyValues.truth(arg(args, kwargs, 0, "ensure_ascii"));
    Object indent = arg(args, kwargs, 1, "indent");
    Object separators = arg(args, kwargs, 2, "separators");
    boolean sortKeys = PyValues.truth(arg(args, kwargs, 3, "sort_keys"));
    String item = null;
    String key = null;
    if (separators instanceof List<?> pair && pair.size() == 2) {
      item = PyValues.str(pair.get(0));
      key = PyValues.str(pair.get(1));
    }
    return PyJson.dumps(value, indent, item, key, ensureAscii, sortKeys);
  }

  /** {@code len()}: code points of a string, entries of a collection or mapping. */
  static int length(Object v) {
    if (v instanceof CharSequence s) {
      return s.toString().codePointCount(0, s.length());
    }
    if (v instanceof Collection<?> c) {
      return c.size();
    }
    if (v instanceof Map<?, ?> m) {
      return m.size();
    }
    if (v instanceof Iterable<?> it) {
      int n = 0;
      for (Object ignored : it) {
        n++;
      }
      return n;
    }
    throw new IllegalArgumentException("object of type '" + pyType(v) + "' has no len()");
  }

  private static String pyType(Object v) {
    return v == null ? "Undefined" : v == PyNone.NONE ? "NoneType" : v instanceof Boolean ? "bool"
        : v instanceof Number ? (v instanceof Double ? "float" : "int") : v.getClass().getSimpleName();
  }

  /** {@code join(d='', attribute=None)}, each item as Python's str(). */
  private static Object join(Object value, Object[] args, Map<String, Object> kwargs) {
    String separator = optString(args, kwargs, 0, "d");
    Object attribute = arg(args, kwargs, 1, "attribute");
    List<String> parts = new ArrayList<>();
    for (Object item : list(value)) {
      if (attribute != null && item instanceof Map<?, ?> m) {
        item = m.get(PyValues.str(attribute));
      }
      parts.add(PyValues.str(item));
    }
    return String.join(separator == null ? "" : separator, parts);
  }

  /** Python's {@code list()}: characters of a string, keys of a mapping, items of an iterable. */
  static List<Object> list(Object value) {
    List<Object> items = new ArrayList<>();
    if (value instanceof CharSequence s) {
      s.toString().codePoints().forEach(cp -> items.add(new String(Character.toChars(cp))));
    } else if (value instanceof Map<?, ?> m) {
      items.addAll(m.keySet());
    } else if (value instanceof Iterable<?> it) {
      it.forEach(items::add);
    } else if (value instanceof Object[] array) {
      items.addAll(List.of(array));
    }
    return items;
  }

  /** {@code default(value='', boolean=False)}: replaces Undefined (or, with boolean, anything false). */
  private static Object defaultValue(Object value, Object[] args, Map<String, Object> kwargs) {
    Object fallback = arg(args, kwargs, 0, "default_value");
    boolean ifFalse = PyValues.truth(arg(args, kwargs, 1, "boolean"));
    if (value == null || (ifFalse && !PyValues.truth(value))) {
      return fallback == null ? "" : fallback;
    }
    return value;
  }
}
