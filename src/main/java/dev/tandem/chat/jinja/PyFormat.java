package dev.tandem.chat.jinja;

import com.hubspot.jinjava.el.ext.NamedParameter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code str.format}: {@code {}}, {@code {0}} and {@code {name}} fields, {@code {{}} and {@code }}}
 * escapes, attribute and index lookups and format specs are not supported (an error, not a guess).
 */
final class PyFormat {
  private PyFormat() {}

  static String format(String template, Object[] args) {
    List<Object> positional = new ArrayList<>();
    Map<String, Object> named = new HashMap<>();
    if (args != null) {
      for (Object a : args) {
        if (a instanceof NamedParameter p) {
          named.put(p.getName(), p.getValue());
        } else {
          positional.add(a);
        }
      }
    }
    StringBuilder out = new StringBuilder();
    int auto = 0;
    for (int i = 0; i < template.length(); i++) {
      char c = template.charAt(i);
      if (c == '{' && i + 1 < template.length() && template.charAt(i + 1) == '{') {
        out.append('{');
        i++;
      } else if (c == '}' && i + 1 < template.length() && template.charAt(i + 1) == '}') {
        out.append('}');
        i++;
      } else if (c == '{') {
        int close = template.indexOf('}', i);
        if (close < 0) {
          throw new IllegalArgumentException("Single '{' encountered in format string");
        }
        String field = template.substring(i + 1, close);
        Object value;
        if (field.isEmpty()) {
          value = positional.get(auto++);
        } else if (field.chars().allMatch(Character::isDigit)) {
          value = positional.get(Integer.parseInt(field));
        } else if (named.containsKey(field)) {
          value = named.get(field);
        } else {
          throw new IllegalArgumentException("unsupported or missing format field {" + field + "}");
        }
        out.append(PyValues.str(value));
        i = close;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static final java.util.regex.Pattern PERCENT = java.util.regex.Pattern.compile(
      "%(?:\\(([^)]*)\\))?([-+ 0#]*)(\\d+)?(?:\\.(\\d+))?([sdirfFeEgGxXoc%])");

  /** Python's {@code format % args}: a tuple (list) of arguments, a mapping for {@code %(name)s}, or one value. */
  static String percent(String format, Object args) {
    List<?> positional = args instanceof List<?> list ? list : List.of(args == null ? "" : args);
    java.util.regex.Matcher m = PERCENT.matcher(format);
    StringBuilder out = new StringBuilder();
    int next = 0;
    while (m.find()) {
      String conversion = m.group(5);
      String replacement;
      if (conversion.equals("%")) {
        replacement = "%";
      } else {
        Object value = m.group(1) != null && args instanceof Map<?, ?> map ? map.get(m.group(1))
            : positional.get(next++);
        replacement = convert(value, m.group(2), m.group(3), m.group(4), conversion.charAt(0));
      }
      m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static String convert(Object value, String flags, String width, String precision, char c) {
    String javaFlags = flags.replace("#", "");
    String spec = "%" + javaFlags + (width == null ? "" : width) + (precision == null ? "" : "." + precision);
    return switch (c) {
      case 's', 'r', 'c' -> {
        String s = c == 'r' ? PyValues.repr(value) : PyValues.str(value);
        yield String.format("%" + (flags.contains("-") ? "-" : "") + (width == null ? "" : width) + "s",
            precision == null ? s : s.substring(0, Math.min(s.length(), Integer.parseInt(precision))));
      }
      case 'd', 'i' -> String.format("%" + javaFlags + (width == null ? "" : width) + "d",
          ((Number) numeric(value)).longValue());
      case 'x', 'X', 'o' -> String.format("%" + javaFlags + (width == null ? "" : width) + c,
          ((Number) numeric(value)).longValue());
      default -> String.format(java.util.Locale.ROOT, spec + (precision == null ? ".6" : "") + c,
          ((Number) numeric(value)).doubleValue()).replace("Infinity", "inf");
    };
  }

  private static Object numeric(Object value) {
    return value instanceof Boolean b ? (b ? 1 : 0) : value;
  }
}
