package dev.tandem.chat.jinja;

import com.hubspot.jinjava.el.ext.ExtendedScanner;

/** Jinjava's scanner reading string literals with Python's escapes, as Jinja2 does. */
final class PyScanner extends ExtendedScanner {

  PyScanner(String input) {
    super(input);
  }

  @Override
  protected Token nextString() throws ScanException {
    String input = getInput();
    char quote = input.charAt(getPosition());
    StringBuilder sb = new StringBuilder();
    int i = getPosition() + 1;
    while (i < input.length()) {
      char c = input.charAt(i++);
      if (c == quote) {
        return token(Symbol.STRING, sb.toString(), i - getPosition());
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      if (i == input.length()) {
        break;
      }
      char e = input.charAt(i++);
      switch (e) {
        case '\n' -> { } // line continuation
        case '\\', '\'', '"' -> sb.append(e);
        case 'n' -> sb.append('\n');
        case 't' -> sb.append('\t');
        case 'r' -> sb.append('\r');
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'v' -> sb.append('\u000b');
        case 'a' -> sb.append('\u0007');
        case 'x', 'u', 'U' -> {
          int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          if (i + digits > input.length()) {
            throw new ScanException(getPosition(), "truncated \\" + e + " escape", "hex digits");
          }
          sb.appendCodePoint(Integer.parseInt(input.substring(i, i + digits), 16));
          i += digits;
        }
        default -> {
          if (e >= '0' && e <= '7') {
            int end = i;
            while (end < input.length() && end < i + 2 && input.charAt(end) >= '0' && input.charAt(end) <= '7') {
              end++;
            }
            sb.append((char) Integer.parseInt(input.substring(i - 1, end), 8));
            i = end;
          } else {
            sb.append('\\').append(e); // Python keeps unknown escapes as written
          }
        }
      }
    }
    throw new ScanException(getPosition(), "unterminated string", quote + " or \\");
  }
}
