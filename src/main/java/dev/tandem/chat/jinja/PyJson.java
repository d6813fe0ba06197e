package dev.tandem.chat.jinja;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Python's {@code json.dumps} as transformers' {@code tojson} filter calls it: {@code ensure_ascii}
 * off by default, no HTML escaping, keys in insertion order unless {@code sort_keys}, separators
 * {@code (", ", ": ")} — or {@code (",", ": ")} when indenting — unless given.
 */
final class PyJson {
  private final String indent;
  private final String itemSeparator;
  private final String keySeparator;
  private final boolean ensureAscii;
  private final boolean sortKeys;
  private final StringBuilder out = new StringBuilder();

  private PyJson(String indent, String itemSeparator, String keySeparator, boolean ensureAscii,
      boolean sortKeys) {
    this.indent = indent;
    this.itemSeparator = itemSeparator;
    this.keySeparator = keySeparator;
    this.ensureAscii = ensureAscii;
    this.sortKeys = sortKeys;
  }

  /** {@code json.dumps(value)} with transformers' defaults. */
  static String dumps(Object value) {
    return dumps(value, null, null, null, false, false);
  }

  /**
   * @param indent null for one line, a number of spaces, or the indent string itself
   * @param itemSeparator null for the default
   * @param keySeparator null for the default
   */
  static String dumps(Object value, Object indent, String itemSeparator, String keySeparator,
      boolean ensureAscii, boolean sortKeys) {
    String indentString = indentString(indent);
    String items = itemSeparator != null ? itemSeparator : indentString != null ? "," : ", ";
    String keys = keySeparator != null ? keySeparator : ": ";
    PyJson json = new PyJson(indentString, items, keys, ensureAscii, sortKeys);
    json.write(value, 0);
    return json.out.toString();
  }

  private static String indentString(Object indent) {
    if (indent == null || indent == PyNone.NONE) {
      return null;
    }
    if (indent instanceof Number n) {
      return " ".repeat(Math.max(0, n.intValue()));
    }
    return indent.toString();
  }

  private void write(Object value, int level) {
    if (value == null || value == PyNone.NONE) {
      out.append("null");
    } else if (value instanceof Boolean b) {
      out.append(b ? "true" : "false");
    } else if (value instanceof Double || value instanceof Float || value instanceof BigDecimal) {
      double d = ((Number) value).doubleValue();
      out.append(Double.isNaN(d) ? "NaN" : Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity")
          : PyValues.floatRepr(d));
    } else if (value instanceof Number n) {
      out.append(n);
    } else if (value instanceof Map<?, ?> map) {
      writeObject(map, level);
    } else if (value instanceof Iterable<?> list) {
      writeArray(list, level);
    } else if (value.getClass().isArray() && value instanceof Object[] array) {
      writeArray(List.of(array), level);
    } else {
      writeString(value.toString());
    }
  }

  private void writeObject(Map<?, ?> map, int level) {
    if (map.isEmpty()) {
      out.append("{}");
      return;
    }
    List<Map.Entry<?, ?>> entries = new ArrayList<>(map.entrySet());
    if (sortKeys) {
      entries.sort((a, b) -> keyString(a.getKey()).compareTo(keyString(b.getKey())));
    }
    out.append('{');
    for (int i = 0; i < entries.size(); i++) {
      out.append(i == 0 ? "" : itemSeparator);
      newline(level + 1);
      writeString(keyString(entries.get(i).getKey()));
      out.append(keySeparator);
      write(entries.get(i).getValue(), level + 1);
    }
    newline(level);
    out.append('}');
  }

  private void writeArray(Iterable<?> list, int level) {
    Iterator<?> it = list.iterator();
    if (!it.hasNext()) {
      out.append("[]");
      return;
    }
    out.append('[');
    boolean first = true;
    while (it.hasNext()) {
      out.append(first ? "" : itemSeparator);
      first = false;
      newline(level + 1);
      write(it.next(), level + 1);
    }
    newline(level);
    out.append(']');
  }

  /** Keys as Python turns them into JSON keys: strings as they are, True as "true", None as "null". */
  private static String keyString(Object key) {
    if (key == null || key == PyNone.NONE) {
      return "null";
    }
    if (key instanceof Boolean b) {
      return b ? "true" : "false";
    }
    if (key instanceof Double d) {
      return PyValues.floatRepr(d);
    }
    return key.toString();
  }

  private void newline(int level) {
    if (indent != null) {
      out.append('\n').append(indent.repeat(level));
    }
  }

  private void writeString(String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20 || (ensureAscii && c > 0x7e)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
