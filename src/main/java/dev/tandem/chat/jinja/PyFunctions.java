package dev.tandem.chat.jinja;

import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import com.hubspot.jinjava.objects.date.StrftimeFormatter;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Locale;

/** The globals transformers adds to its chat-template environment. */
final class PyFunctions {
  private PyFunctions() {}

  static List<ELFunctionDefinition> all() {
    return List.of(
        new ELFunctionDefinition("", "raise_exception", PyFunctions.class, "raiseException", Object.class),
        new ELFunctionDefinition("", "strftime_now", PyFunctions.class, "strftimeNow", String.class));
  }

  /** Thrown by {@code raise_exception}; found again in the render's errors, see {@link Jinja2Template}. */
  static final class Raised extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Raised(String message) {
      super(message);
    }
  }

  static Object raiseException(Object message) {
    throw new Raised(PyValues.str(message));
  }

  /** {@code datetime.now().strftime(format)} in this machine's time zone. */
  static String strftimeNow(String format) {
    return StrftimeFormatter.format(ZonedDateTime.now(), format, Locale.ENGLISH);
  }
}
