package dev.tandem.chat.jinja;

/**
 * Applies Jinja2's lexer-level whitespace rules to a template source, so that Jinjava (run with
 * trim_blocks and lstrip_blocks off) sees exactly the text Jinja2 would emit between tags.
 *
 * <p>Jinja2 decides whitespace in its lexer (jinja2/lexer.py), before parsing: newlines are
 * normalised to {@code \n} and one trailing newline is dropped ({@code keep_trailing_newline=False});
 * {@code {%-}, {@code {{-}, {@code {#-} strip all whitespace before the tag and {@code -%}},
 * {@code -}}}, {@code -#}} all whitespace after it; with {@code trim_blocks} the first newline after a
 * block or comment is removed (not after {@code +%}}); with {@code lstrip_blocks} the spaces and tabs
 * between the start of a line and a block or comment are removed (not before {@code {%+}, never
 * before {@code {{}). Jinjava implements these differently (it strips before tags in mid-line, loses
 * spaces around comments, has no {@code +}), so this class does the lexer's work itself: the output
 * has comments removed and every sign gone, and renders the same under Jinjava as the input under
 * Jinja2.
 */
final class Jinja2Whitespace {
  private final String src;
  private final boolean trimBlocks;
  private final boolean lstripBlocks;
  private final StringBuilder out = new StringBuilder();
  private int pos;
  /** Jinja2's {@code line_starting}: the last lexer match ended with a newline (true at the start). */
  private boolean lineStarting = true;

  private Jinja2Whitespace(String src, boolean trimBlocks, boolean lstripBlocks) {
    this.src = src;
    this.trimBlocks = trimBlocks;
    this.lstripBlocks = lstripBlocks;
  }

  /** The source with transformers' settings (trim_blocks and lstrip_blocks on) applied. */
  static String apply(String source) {
    return apply(source, true, true);
  }

  static String apply(String source, boolean trimBlocks, boolean lstripBlocks) {
    Jinja2Whitespace w = new Jinja2Whitespace(normalizeNewlines(source), trimBlocks, lstripBlocks);
    w.run();
    return w.out.toString();
  }

  /** {@code \r\n} and {@code \r} become {@code \n}; one trailing newline is dropped. */
  static String normalizeNewlines(String source) {
    String s = source.replace("\r\n", "\n").replace('\r', '\n');
    return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
  }

  private void run() {
    while (pos < src.length()) {
      int tag = nextTagStart(pos);
      if (tag < 0) {
        out.append(src, pos, src.length());
        return;
      }
      char kind = src.charAt(tag + 1);
      int afterOpen = tag + 2;
      char sign = afterOpen < src.length() ? src.charAt(afterOpen) : 0;
      boolean signed = sign == '-' || sign == '+';
      int rawEnd = kind == '%' ? rawBeginEnd(tag) : -1;
      String text = src.substring(pos, tag);
      out.append(stripBefore(text, signed ? sign : 0, kind == '{'));
      if (rawEnd >= 0) {
        pos = rawEnd;
        lineStarting = src.charAt(rawEnd - 1) == '\n';
        raw();
      } else if (kind == '#') {
        comment(signed ? afterOpen + 1 : afterOpen);
      } else {
        tag(kind, signed ? afterOpen + 1 : afterOpen);
      }
    }
  }

  /** The first {@code {%}, {@code {{} or {@code {#} at or after {@code from}, or -1. */
  private int nextTagStart(int from) {
    for (int i = from; i < src.length() - 1; i++) {
      if (src.charAt(i) == '{') {
        char c = src.charAt(i + 1);
        if (c == '%' || c == '{' || c == '#') {
          return i;
        }
      }
    }
    return -1;
  }

  /** Jinja2's OptionalLStrip: the text before a tag, with the tag's sign and lstrip_blocks applied. */
  private String stripBefore(String text, char sign, boolean variable) {
    if (sign == '-') {
      return rstrip(text);
    }
    if (sign != '+' && lstripBlocks && !variable) {
      int lineStart = text.lastIndexOf('\n') + 1;
      if ((lineStart > 0 || lineStarting) && lineStart < text.length()
          && isAllWhitespace(text, lineStart)) {
        return text.substring(0, lineStart);
      }
    }
    return text;
  }

  /** {@code {%(-|+|)\s*raw\s*(-%}\s*|%})} at {@code tag}: the index after it, or -1. */
  private int rawBeginEnd(int tag) {
    int i = tag + 2;
    if (i < src.length() && (src.charAt(i) == '-' || src.charAt(i) == '+')) {
      i++;
    }
    i = skipWhitespace(i);
    if (!src.startsWith("raw", i)) {
      return -1;
    }
    i = skipWhitespace(i + 3);
    if (src.startsWith("-%}", i)) {
      return skipWhitespace(i + 3);
    }
    return src.startsWith("%}", i) ? i + 2 : -1;
  }

  /** The body of a raw block up to its {@code endraw}, kept verbatim inside Jinjava's raw tag. */
  private void raw() {
    for (int i = pos; i < src.length() - 1; i++) {
      if (src.charAt(i) != '{' || src.charAt(i + 1) != '%') {
        continue;
      }
      int j = i + 2;
      char sign = j < src.length() && (src.charAt(j) == '-' || src.charAt(j) == '+') ? src.charAt(j) : 0;
      j = skipWhitespace(sign != 0 ? j + 1 : j);
      if (!src.startsWith("endraw", j)) {
        continue;
      }
      int end = tagEnd(skipWhitespace(j + 6), "%}", trimBlocks);
      if (end < 0) {
        continue;
      }
      String body = stripBefore(src.substring(pos, i), sign, false);
      out.append("{% raw %}").append(body).append("{% endraw %}");
      finish(end);
      return;
    }
    throw new IllegalArgumentException("Missing end of raw directive");
  }

  private void comment(int from) {
    int close = src.indexOf("#}", from);
    if (close < 0) {
      throw new IllegalArgumentException("Missing end of comment tag");
    }
    char sign = close > from ? src.charAt(close - 1) : 0;
    int end;
    if (sign == '-') {
      end = skipWhitespace(close + 2);
    } else if (sign == '+' || !trimBlocks) {
      end = close + 2;
    } else {
      end = close + 2 < src.length() && src.charAt(close + 2) == '\n' ? close + 3 : close + 2;
    }
    finish(end);
  }

  /** A {@code {{ }}} or {@code {% %}} tag: its expression is copied, its signs and whitespace applied. */
  private void tag(char kind, int from) {
    String close = kind == '{' ? "}}" : "%}";
    int depth = 0;
    int i = from;
    while (i < src.length()) {
      char c = src.charAt(i);
      if (depth == 0) {
        int end = -1;
        int exprEnd = i;
        if (c == '-' && src.startsWith(close, i + 1)) {
          end = skipWhitespace(i + 3);
        } else if (c == '+' && kind == '%' && src.startsWith(close, i + 1)) {
          end = i + 3;
        } else if (src.startsWith(close, i)) {
          end = kind == '%' ? tagEnd(i, close, trimBlocks) : i + 2;
        }
        if (end >= 0) {
          // spaces around the expression keep a leading '-' from reading as Jinjava whitespace control
          out.append(kind == '{' ? "{{ " : "{% ").append(separateBraces(src.substring(from, exprEnd)))
              .append(kind == '{' ? " }}" : " %}");
          finish(end);
          return;
        }
      }
      if (c == '\'' || c == '"') {
        i = skipString(i, c);
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        depth++;
      } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
        depth--;
      }
      i++;
    }
    throw new IllegalArgumentException("unexpected end of template: missing '" + close + "'");
  }

  /**
   * An expression with {@code }}} outside string literals written {@code } }}: Jinjava's tag scanner
   * would end a {@code {{ }}} at the first {@code }}} of a nested dict literal.
   */
  static String separateBraces(String expression) {
    StringBuilder sb = new StringBuilder(expression.length());
    for (int i = 0; i < expression.length(); i++) {
      char c = expression.charAt(i);
      if (c == '\'' || c == '"') {
        int j = i + 1;
        while (j < expression.length() && expression.charAt(j) != c) {
          j += expression.charAt(j) == '\\' ? 2 : 1;
        }
        j = Math.min(j, expression.length() - 1);
        sb.append(expression, i, j + 1);
        i = j;
        continue;
      }
      sb.append(c);
      if (c == '}' && i + 1 < expression.length() && expression.charAt(i + 1) == '}') {
        sb.append(' ');
      }
    }
    return sb.toString();
  }

  /** The index after {@code close} at {@code i}, plus the newline trim_blocks removes. */
  private int tagEnd(int i, String close, boolean trim) {
    if (src.startsWith("-" + close, i)) {
      return skipWhitespace(i + 1 + close.length());
    }
    if (src.startsWith("+" + close, i)) {
      return i + 1 + close.length();
    }
    if (!src.startsWith(close, i)) {
      return -1;
    }
    int end = i + close.length();
    return trim && end < src.length() && src.charAt(end) == '\n' ? end + 1 : end;
  }

  private void finish(int end) {
    lineStarting = end > 0 && src.charAt(end - 1) == '\n';
    pos = end;
  }

  private int skipString(int i, char quote) {
    int j = i + 1;
    while (j < src.length() && src.charAt(j) != quote) {
      j += src.charAt(j) == '\\' ? 2 : 1;
    }
    return Math.min(j + 1, src.length());
  }

  private int skipWhitespace(int i) {
    while (i < src.length() && isSpace(src.charAt(i))) {
      i++;
    }
    return i;
  }

  private static String rstrip(String s) {
    int end = s.length();
    while (end > 0 && isSpace(s.charAt(end - 1))) {
      end--;
    }
    return s.substring(0, end);
  }

  private static boolean isAllWhitespace(String s, int from) {
    for (int i = from; i < s.length(); i++) {
      if (!isSpace(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** Python's {@code str.isspace} / {@code re}'s {@code \s} for one character. */
  static boolean isSpace(char c) {
    return Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '\u0085'
        || (c >= '\u001c' && c <= '\u001f');
  }
}
