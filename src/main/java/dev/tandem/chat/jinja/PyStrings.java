package dev.tandem.chat.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Python's {@code str} methods that chat templates call ({@code content.strip()},
 * {@code content.split('</think>')}, {@code role.startswith(...)}), which Jinjava, resolving
 * methods on {@link String} by Java reflection, does not have.
 */
final class PyStrings {
  /** Returned by {@link #call} for a method that is not a Python str method. */
  static final Object UNKNOWN = new Object();

  private PyStrings() {}

  /** Calls {@code s.method(*args)}; {@link #UNKNOWN} if str has no such method. */
  static Object call(String s, String method, Object[] args) {
    return switch (method) {
      case "strip" -> strip(s, chars(args), true, true);
      case "lstrip" -> strip(s, chars(args), true, false);
      case "rstrip" -> strip(s, chars(args), false, true);
      case "split" -> split(s, arg(args, 0), maxsplit(args));
      case "rsplit" -> rsplit(s, arg(args, 0), maxsplit(args));
      case "splitlines" -> splitlines(s);
      case "startswith" -> affix(s, arg(args, 0), args, true);
      case "endswith" -> affix(s, arg(args, 0), args, false);
      case "upper" -> s.toUpperCase(Locale.ROOT);
      case "lower", "casefold" -> s.toLowerCase(Locale.ROOT);
      case "title" -> title(s);
      case "capitalize" -> capitalize(s);
      case "swapcase" -> swapcase(s);
      case "replace" -> replace(s, str(args, 0), str(args, 1), arg(args, 2));
      case "find" -> s.indexOf(str(args, 0));
      case "rfind" -> s.lastIndexOf(str(args, 0));
      case "index", "rindex" -> index(s, str(args, 0), method.equals("index"));
      case "count" -> count(s, str(args, 0));
      case "join" -> join(s, arg(args, 0));
      case "format" -> PyFormat.format(s, args);
      case "removeprefix" -> s.startsWith(str(args, 0)) ? s.substring(str(args, 0).length()) : s;
      case "removesuffix" -> s.endsWith(str(args, 0)) && !str(args, 0).isEmpty()
          ? s.substring(0, s.length() - str(args, 0).length()) : s;
      case "partition" -> partition(s, str(args, 0), s.indexOf(str(args, 0)), false);
      case "rpartition" -> partition(s, str(args, 0), s.lastIndexOf(str(args, 0)), true);
      case "isdigit", "isnumeric", "isdecimal" -> !s.isEmpty() && s.codePoints().allMatch(Character::isDigit);
      case "isalpha" -> !s.isEmpty() && s.codePoints().allMatch(Character::isLetter);
      case "isalnum" -> !s.isEmpty() && s.codePoints().allMatch(Character::isLetterOrDigit);
      case "isspace" -> !s.isEmpty() && s.chars().allMatch(c -> Jinja2Whitespace.isSpace((char) c));
      case "isupper" -> hasCased(s) && s.equals(s.toUpperCase(Locale.ROOT));
      case "islower" -> hasCased(s) && s.equals(s.toLowerCase(Locale.ROOT));
      case "istitle" -> hasCased(s) && s.equals(title(s));
      case "zfill" -> zfill(s, ((Number) arg(args, 0)).intValue());
      case "center", "ljust", "rjust" -> pad(s, method, ((Number) arg(args, 0)).intValue(), args);
      default -> UNKNOWN;
    };
  }

  private static Object arg(Object[] args, int i) {
    if (args == null || i >= args.length || args[i] == PyNone.NONE) {
      return null;
    }
    return args[i];
  }

  private static String str(Object[] args, int i) {
    Object v = arg(args, i);
    if (v == null) {
      throw new IllegalArgumentException("missing string argument " + (i + 1));
    }
    return PyValues.str(v);
  }

  private static String chars(Object[] args) {
    Object v = arg(args, 0);
    return v == null ? null : PyValues.str(v);
  }

  private static int maxsplit(Object[] args) {
    Object v = arg(args, 1);
    return v instanceof Number n ? n.intValue() : -1;
  }

  /** {@code str.strip(chars)}: whitespace when chars is None. */
  static String strip(String s, String chars, boolean left, boolean right) {
    int from = 0;
    int to = s.length();
    while (left && from < to && stripped(s.charAt(from), chars)) {
      from++;
    }
    while (right && to > from && stripped(s.charAt(to - 1), chars)) {
      to--;
    }
    return s.substring(from, to);
  }

  private static boolean stripped(char c, String chars) {
    return chars == null ? Jinja2Whitespace.isSpace(c) : chars.indexOf(c) >= 0;
  }

  static List<String> split(String s, Object sep, int maxsplit) {
    List<String> parts = new ArrayList<>();
    if (sep == null) {
      int i = 0;
      while (true) {
        while (i < s.length() && Jinja2Whitespace.isSpace(s.charAt(i))) {
          i++;
        }
        if (i >= s.length()) {
          return parts;
        }
        if (maxsplit >= 0 && parts.size() == maxsplit) {
          parts.add(strip(s.substring(i), null, false, true));
          return parts;
        }
        int j = i;
        while (j < s.length() && !Jinja2Whitespace.isSpace(s.charAt(j))) {
          j++;
        }
        parts.add(s.substring(i, j));
        i = j;
      }
    }
    String separator = PyValues.str(sep);
    if (separator.isEmpty()) {
      throw new IllegalArgumentException("empty separator");
    }
    int from = 0;
    int at;
    while ((maxsplit < 0 || parts.size() < maxsplit) && (at = s.indexOf(separator, from)) >= 0) {
      parts.add(s.substring(from, at));
      from = at + separator.length();
    }
    parts.add(s.substring(from));
    return parts;
  }

  private static List<String> rsplit(String s, Object sep, int maxsplit) {
    if (maxsplit < 0 || sep == null) {
      return split(s, sep, maxsplit); // same result when every separator splits
    }
    String separator = PyValues.str(sep);
    List<String> parts = new ArrayList<>();
    int to = s.length();
    int at;
    while (parts.size() < maxsplit && (at = s.lastIndexOf(separator, to - separator.length())) >= 0
        && to - separator.length() >= 0) {
      parts.add(0, s.substring(at + separator.length(), to));
      to = at;
    }
    parts.add(0, s.substring(0, to));
    return parts;
  }

  private static List<String> splitlines(String s) {
    List<String> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\n' || c == '\r' || c == '\u000b' || c == '\u000c' || (c >= '\u001c' && c <= '\u001e')
          || c == '\u0085' || c == '\u2028' || c == '\u2029') {
        lines.add(s.substring(start, i));
        if (c == '\r' && i + 1 < s.length() && s.charAt(i + 1) == '\n') {
          i++;
        }
        start = i + 1;
      }
    }
    if (start < s.length()) {
      lines.add(s.substring(start));
    }
    return lines;
  }

  /** {@code startswith}/{@code endswith} with a string or a tuple of strings, and optional start/end. */
  private static boolean affix(String s, Object affix, Object[] args, boolean prefix) {
    int from = arg(args, 1) instanceof Number n ? clamp(n.intValue(), s.length()) : 0;
    int to = arg(args, 2) instanceof Number n ? clamp(n.intValue(), s.length()) : s.length();
    String part = from <= to ? s.substring(from, to) : "";
    if (affix instanceof Iterable<?> options) {
      for (Object o : options) {
        if (prefix ? part.startsWith(PyValues.str(o)) : part.endsWith(PyValues.str(o))) {
          return true;
        }
      }
      return false;
    }
    String a = PyValues.str(affix);
    return prefix ? part.startsWith(a) : part.endsWith(a);
  }

  private static int clamp(int i, int length) {
    return Math.max(0, Math.min(length, i < 0 ? i + length : i));
  }

  /** Python's title(): a cased character after an uncased one is upper case, after a cased one lower. */
  static String title(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    boolean previousCased = false;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      sb.append(previousCased ? new String(Character.toChars(cp)).toLowerCase(Locale.ROOT)
          : new String(Character.toChars(Character.toTitleCase(cp))));
      previousCased = isCased(cp);
      i += Character.charCount(cp);
    }
    return sb.toString();
  }

  static String capitalize(String s) {
    if (s.isEmpty()) {
      return s;
    }
    int first = s.codePointAt(0);
    return new String(Character.toChars(Character.toTitleCase(first)))
        + s.substring(Character.charCount(first)).toLowerCase(Locale.ROOT);
  }

  private static String swapcase(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    s.codePoints().forEach(cp -> sb.appendCodePoint(Character.isUpperCase(cp) ? Character.toLowerCase(cp)
        : Character.isLowerCase(cp) ? Character.toUpperCase(cp) : cp));
    return sb.toString();
  }

  private static boolean isCased(int cp) {
    return Character.isUpperCase(cp) || Character.isLowerCase(cp) || Character.isTitleCase(cp);
  }

  private static boolean hasCased(String s) {
    return s.codePoints().anyMatch(PyStrings::isCased);
  }

  private static String replace(String s, String old, String replacement, Object count) {
    int n = count instanceof Number c ? c.intValue() : -1;
    if (n < 0) {
      return s.replace(old, replacement);
    }
    StringBuilder sb = new StringBuilder();
    int from = 0;
    int at;
    while (n-- > 0 && (at = s.indexOf(old, from)) >= 0) {
      sb.append(s, from, at).append(replacement);
      from = at + old.length();
      if (old.isEmpty()) {
        if (from < s.length()) {
          sb.append(s.charAt(from));
        }
        from++;
      }
    }
    return from <= s.length() ? sb.append(s.substring(from)).toString() : sb.toString();
  }

  private static int index(String s, String sub, boolean first) {
    int i = first ? s.indexOf(sub) : s.lastIndexOf(sub);
    if (i < 0) {
      throw new IllegalArgumentException("substring not found");
    }
    return i;
  }

  private static int count(String s, String sub) {
    if (sub.isEmpty()) {
      return s.codePointCount(0, s.length()) + 1;
    }
    int n = 0;
    for (int at = s.indexOf(sub); at >= 0; at = s.indexOf(sub, at + sub.length())) {
      n++;
    }
    return n;
  }

  private static String join(String separator, Object items) {
    if (items instanceof CharSequence cs) {
      List<String> chars = new ArrayList<>();
      cs.toString().codePoints().forEach(cp -> chars.add(new String(Character.toChars(cp))));
      return String.join(separator, chars);
    }
    List<String> parts = new ArrayList<>();
    if (items instanceof Iterable<?> it) {
      it.forEach(o -> parts.add(PyValues.str(o)));
    }
    return String.join(separator, parts);
  }

  private static List<String> partition(String s, String sep, int at, boolean right) {
    if (at < 0) {
      return right ? List.of("", "", s) : List.of(s, "", "");
    }
    return List.of(s.substring(0, at), sep, s.substring(at + sep.length()));
  }

  private static String zfill(String s, int width) {
    if (s.length() >= width) {
      return s;
    }
    boolean signed = !s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+');
    String zeros = "0".repeat(width - s.length());
    return signed ? s.charAt(0) + zeros + s.substring(1) : zeros + s;
  }

  private static String pad(String s, String how, int width, Object[] args) {
    String fill = arg(args, 1) == null ? " " : PyValues.str(arg(args, 1));
    int length = s.codePointCount(0, s.length());
    if (length >= width) {
      return s;
    }
    int total = width - length;
    int left = switch (how) {
      case "ljust" -> 0;
      case "rjust" -> total;
      default -> total / 2 + (total & width & 1); // CPython's centering rule
    };
    return fill.repeat(left) + s + fill.repeat(total - left);
  }
}
