package dev.tandem.chat.jinja;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Template values as Python sees them: JSON in (objects keep their key order, {@code null} becomes
 * {@link PyNone}), and Python's {@code str()}, {@code repr()} and truth out.
 */
final class PyValues {
  private PyValues() {}

  /** A JSON value (Vert.x or plain Java maps and lists) as a template value; null is None. */
  static Object fromJson(Object value) {
    if (value == null || value == PyNone.NONE) {
      return PyNone.NONE;
    }
    if (value instanceof JsonObject o) {
      return fromJson(o.getMap());
    }
    if (value instanceof JsonArray a) {
      return fromJson(a.getList());
    }
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> map = new LinkedHashMap<>();
      m.forEach((k, v) -> map.put(String.valueOf(k), fromJson(v)));
      return map;
    }
    if (value instanceof Collection<?> c) {
      List<Object> list = new ArrayList<>(c.size());
      c.forEach(v -> list.add(fromJson(v)));
      return list;
    }
    if (value instanceof Float f) {
      return f.doubleValue();
    }
    if (value instanceof Short || value instanceof Byte) {
      return ((Number) value).intValue();
    }
    return value;
  }

  /** Python's truth value. Unlike Jinjava, the string "false" is true. */
  static boolean truth(Object value) {
    if (value == null || value == PyNone.NONE) {
      return false;
    }
    if (value instanceof Boolean b) {
      return b;
    }
    if (value instanceof Number n) {
      return n.doubleValue() != 0;
    }
    if (value instanceof CharSequence s) {
      return s.length() > 0;
    }
    if (value instanceof Collection<?> c) {
      return !c.isEmpty();
    }
    if (value instanceof Map<?, ?> m) {
      return !m.isEmpty();
    }
    if (value.getClass().isArray()) {
      return java.lang.reflect.Array.getLength(value) > 0;
    }
    return com.hubspot.jinjava.util.ObjectTruthValue.evaluate(value);
  }

  /** Python's {@code str(value)}; Java null (Jinja2's Undefined) is the empty string. */
  static String str(Object value) {
    if (value == null) {
      return "";
    }
    if (value instanceof CharSequence s) {
      return s.toString();
    }
    return repr(value);
  }

  /** Python's {@code repr(value)} for the types templates meet. */
  static String repr(Object value) {
    StringBuilder sb = new StringBuilder();
    appendRepr(sb, value);
    return sb.toString();
  }

  private static void appendRepr(StringBuilder sb, Object value) {
    if (value == null || value == PyNone.NONE) {
      sb.append(value == null ? "" : "None");
    } else if (value instanceof Boolean b) {
      sb.append(b ? "True" : "False");
    } else if (value instanceof CharSequence s) {
      appendStringRepr(sb, s.toString());
    } else if (value instanceof Double || value instanceof Float) {
      sb.append(floatRepr(((Number) value).doubleValue()));
    } else if (value instanceof BigDecimal d) {
      sb.append(floatRepr(d.doubleValue()));
    } else if (value instanceof Map<?, ?> m) {
      sb.append('{');
      Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<?, ?> e = it.next();
        appendRepr(sb, e.getKey());
        sb.append(": ");
        appendRepr(sb, e.getValue());
        if (it.hasNext()) {
          sb.append(", ");
        }
      }
      sb.append('}');
    } else if (value instanceof Iterable<?> list) {
      sb.append('[');
      Iterator<?> it = list.iterator();
      while (it.hasNext()) {
        appendRepr(sb, it.next());
        if (it.hasNext()) {
          sb.append(", ");
        }
      }
      sb.append(']');
    } else {
      sb.append(value);
    }
  }

  /** Python's string repr: single quotes unless the text has a ' and no ". */
  private static void appendStringRepr(StringBuilder sb, String s) {
    char quote = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
    sb.append(quote);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == quote || c == '\\') {
        sb.append('\\').append(c);
      } else if (c == '\n') {
        sb.append("\\n");
      } else if (c == '\r') {
        sb.append("\\r");
      } else if (c == '\t') {
        sb.append("\\t");
      } else if (c < 0x20 || c == 0x7f) {
        sb.append(String.format("\\x%02x", (int) c));
      } else {
        sb.append(c);
      }
    }
    sb.append(quote);
  }

  /**
   * Python's {@code repr(float)}: the shortest digits that read back, in positional notation for
   * decimal exponents -4..15 ({@code 1.0}, {@code 0.0001}) and as {@code 1e+16} / {@code 1e-05}
   * outside.
   */
  static String floatRepr(double d) {
    if (Double.isNaN(d)) {
      return "nan";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    }
    if (d == 0) {
      return (1 / d < 0) ? "-0.0" : "0.0";
    }
    BigDecimal b = new BigDecimal(Double.toString(d)).stripTrailingZeros();
    String digits = b.unscaledValue().abs().toString();
    int exponent = digits.length() - 1 - b.scale(); // of the first digit
    String sign = d < 0 ? "-" : "";
    if (exponent < -4 || exponent >= 16) {
      String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
      String exp = String.format("%02d", Math.abs(exponent));
      return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + exp;
    }
    String plain = b.abs().toPlainString();
    return sign + (plain.contains(".") ? plain : plain + ".0");
  }
}
